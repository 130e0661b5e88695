import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ConformanceFixture } from './types.js';

export const REFERENCE_DATA_SET_NAME = 'scheme_reference_data';
/** The versions shipped in data/scheme_reference_data/, newest last. */
export const REFERENCE_DATA_VERSIONS = ['1.0.0'] as const;
export type ReferenceDataVersion = (typeof REFERENCE_DATA_VERSIONS)[number];

const Identifiers = z.strictObject({
  lei: z.string().optional(),
  others: z.array(z.strictObject({ scheme: z.string(), id: z.string() })).optional(),
});

const NamedAccount = z.object({ iban: z.string(), name: z.string() }).passthrough();

/** The fixture the scheme suite fills its placeholders from: the EPC fixture and named accounts. */
const SchemeFixture = z
  .object({
    responderBic: z.string(),
    responderBic8: z.string(),
    foreignBic: z.string(),
    requesterBic: z.string(),
    otherParticipantBic: z.string(),
    person: z.object({
      iban: z.string(),
      name: z.string(),
      nameWithDiacritics: z.string(),
      otherName: z.string(),
    }),
    organisation: z.object({
      iban: z.string(),
      name: z.string(),
      closeName: z.string(),
      lei: z.string(),
      otherLei: z.string(),
      txid: z.string(),
    }),
    unknownIban: z.string(),
    accounts: z.record(z.string(), NamedAccount),
  })
  .strict();
export type SchemeFixture = ConformanceFixture & z.infer<typeof SchemeFixture>;

export const ReferenceAccount = z.strictObject({
  iban: z.string(),
  name: z.string(),
  holderType: z.enum(['person', 'organisation']).optional(),
  alternateNames: z.array(z.string()).optional(),
  status: z.enum(['active', 'closed', 'blocked']).optional(),
  identifiers: Identifiers.optional(),
});
export type ReferenceAccount = z.infer<typeof ReferenceAccount>;

export const ReferenceDataSet = z.strictObject({
  dataSet: z.literal(REFERENCE_DATA_SET_NAME),
  version: z.string(),
  description: z.string(),
  fixture: SchemeFixture,
  accounts: z.array(ReferenceAccount).min(1),
});
export type ReferenceDataSet = z.infer<typeof ReferenceDataSet>;

export function isReferenceDataVersion(version: string): version is ReferenceDataVersion {
  return (REFERENCE_DATA_VERSIONS as readonly string[]).includes(version);
}

/** One shipped version of the reference data set (the accounts the suite's cases ask about). */
export async function loadReferenceData(
  version: ReferenceDataVersion = REFERENCE_DATA_VERSIONS[REFERENCE_DATA_VERSIONS.length - 1] ??
    '1.0.0',
): Promise<ReferenceDataSet> {
  const file = new URL(`../data/${REFERENCE_DATA_SET_NAME}/${version}.json`, import.meta.url);
  return ReferenceDataSet.parse(JSON.parse(await readFile(file, 'utf8')));
}
