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

/** The newest shipped version, what `latest` names. */
export const LATEST_REFERENCE_DATA_VERSION = REFERENCE_DATA_VERSIONS[
  REFERENCE_DATA_VERSIONS.length - 1
] as ReferenceDataVersion;

/**
 * A version as people write it: `latest`, `1.0.0`, `1.0`, `1`, `v1.0.0` (missing parts are zero);
 * undefined when no shipped version is meant.
 */
export function resolveReferenceDataVersion(spelling: string): ReferenceDataVersion | undefined {
  const written = spelling.trim().toLowerCase();
  if (written === 'latest') return LATEST_REFERENCE_DATA_VERSION;
  const parts = /^v?(\d{1,4})(?:\.(\d{1,4}))?(?:\.(\d{1,4}))?$/.exec(written);
  if (parts === null) return undefined;
  const full = [parts[1], parts[2] ?? '0', parts[3] ?? '0'].map(Number).join('.');
  return isReferenceDataVersion(full) ? full : undefined;
}

/** One shipped version of the reference data set (the accounts the suite's cases ask about). */
export async function loadReferenceData(
  version: ReferenceDataVersion = LATEST_REFERENCE_DATA_VERSION,
): Promise<ReferenceDataSet> {
  const file = new URL(`../data/${REFERENCE_DATA_SET_NAME}/${version}.json`, import.meta.url);
  return ReferenceDataSet.parse(JSON.parse(await readFile(file, 'utf8')));
}
