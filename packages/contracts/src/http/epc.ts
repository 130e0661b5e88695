import { Bic, HolderName, Iban, Lei } from '../identifiers.js';
import { isLatinText, NON_LATIN_CHARACTERS } from '../latin-text.js';
import { z } from '../zod.js';

// EPC inter-PSP API (EPC103-24) v1.1.1, responding side: POST /vop/v1/payee-verifications.

/** ExternalOrganisationIdentification1Code values the EPC API accepts for party identification. */
export const EPC_IDENTIFICATION_SCHEMES = [
  'BANK',
  'CBID',
  'CHID',
  'CINC',
  'COID',
  'CUST',
  'DUNS',
  'EMPL',
  'GS1G',
  'SREN',
  'SRET',
  'TXID',
  'BDID',
  'BOID',
] as const;
export type EpcIdentificationScheme = (typeof EPC_IDENTIFICATION_SCHEMES)[number];

/** The only schemes with a published format: SIREN (9 digits) and SIRET (14 digits). */
const SCHEME_FORMATS: Partial<Record<EpcIdentificationScheme, RegExp>> = {
  SREN: /^\d{9}$/,
  SRET: /^\d{14}$/,
};

// Latin characters with at least one visible: both checks in one pattern for the OpenAPI document
// (JSON Schema keeps one), so a request valid by the document is accepted. The set of latin-text.ts.
const LATIN =
  '\\u0020-\\u007E\\u00A0-\\u00AC\\u00AE-\\u024F\\u0300-\\u034E\\u0350-\\u036F\\u1E00-\\u1EFF\\u2013\\u2014\\u2018-\\u201F';
const VISIBLE_LATIN =
  '\\u0021-\\u007E\\u00A1-\\u00AC\\u00AE-\\u024F\\u0300-\\u034E\\u0350-\\u036F\\u1E00-\\u1EFF\\u2013\\u2014\\u2018-\\u201F';
const LATIN_VISIBLE_PATTERN = `^[${LATIN}]*[${VISIBLE_LATIN}][${LATIN}]*$`;

/** A v1.1.1 text field: never empty (nor blank), Latin characters only, at most `max`. */
const latinText = (max: number) =>
  z
    .string()
    .max(max)
    .refine(isLatinText, { message: NON_LATIN_CHARACTERS })
    .regex(/\S/, 'EMPTY_FIELD')
    .trim()
    .openapi({ pattern: LATIN_VISIBLE_PATTERN });

const EpcName = HolderName.refine(isLatinText, { message: NON_LATIN_CHARACTERS }).openapi({
  pattern: LATIN_VISIBLE_PATTERN,
});

const FinancialInstitution = z.strictObject({
  financialInstitutionId: z.strictObject({ bicfi: Bic }),
});

/**
 * One identification under an EPC scheme; SIREN and SIRET have their published formats. A union by
 * scheme, so the OpenAPI document states each format (a request valid by the document is accepted).
 */
const UNFORMATTED_SCHEMES = EPC_IDENTIFICATION_SCHEMES.filter(
  (scheme) => SCHEME_FORMATS[scheme] === undefined,
) as [EpcIdentificationScheme, ...EpcIdentificationScheme[]];

const EpcOtherIdentification = z.discriminatedUnion('scheme', [
  z.strictObject({
    scheme: z.literal('SREN'),
    id: z.string().regex(SCHEME_FORMATS.SREN as RegExp, 'INVALID_IDENTIFICATION'),
  }),
  z.strictObject({
    scheme: z.literal('SRET'),
    id: z.string().regex(SCHEME_FORMATS.SRET as RegExp, 'INVALID_IDENTIFICATION'),
  }),
  // organisationId/others/identification is Max256Text in the EPC API.
  z.strictObject({ scheme: z.enum(UNFORMATTED_SCHEMES), id: latinText(256) }),
]);

export const EpcPartyIdentification = z
  .strictObject({
    lei: Lei.optional(),
    others: z.array(EpcOtherIdentification).min(1).max(10).optional(),
  })
  .refine((identification) => identification.lei !== undefined || identification.others, {
    message: 'EMPTY_FIELD',
  })
  .openapi('EpcPartyIdentification', { minProperties: 1 });

/**
 * v1.1.1 request: the name, the identification, or both; no empty field; Latin characters; at most
 * one remittance entry of Max140.
 */
export const EpcVerifyRequest = z
  .strictObject({
    party: z
      .strictObject({ name: EpcName.optional(), identification: EpcPartyIdentification.optional() })
      .refine((party) => party.name !== undefined || party.identification !== undefined, {
        message: 'MISSING_FIELD',
        path: ['name'],
      })
      // The refinement, said in the document: a name, an identification, or both.
      .openapi({ anyOf: [{ required: ['name'] }, { required: ['identification'] }] }),
    partyAccount: z.strictObject({ iban: Iban }),
    partyAgent: FinancialInstitution,
    requestingAgent: FinancialInstitution,
    unstructuredRemittanceInformation: z.array(latinText(140)).min(1).max(1).optional(),
  })
  .openapi('EpcVerifyRequest');
export type EpcVerifyRequest = z.infer<typeof EpcVerifyRequest>;

/** EPC rules: matchedName only on CMTC; partyNameMatch only when a name was sent, partyIdMatch only for an identification. */
export const EpcVerifyResponse = z
  .object({
    partyNameMatch: z.enum(['MTCH', 'CMTC', 'NMTC', 'NOAP']).optional(),
    matchedName: z.string().max(140).optional(),
    partyIdMatch: z.enum(['MTCH', 'NMTC', 'NOAP']).optional(),
  })
  .openapi('EpcVerifyResponse');
export type EpcVerifyResponse = z.infer<typeof EpcVerifyResponse>;

/** The MessageCode list of VerificationOfPayeeError. */
export const EPC_ERROR_CODES = [
  'FORMAT_ERROR',
  'CLIENT_INVALID',
  'CLIENT_INCONSISTENT',
  'TIMESTAMP_INVALID',
] as const;
export type EpcErrorCode = (typeof EPC_ERROR_CODES)[number];

/** The API answers errors with these statuses only (it has no 403). */
export const EPC_ERROR_STATUSES = [400, 401, 500] as const;
export type EpcErrorStatus = (typeof EPC_ERROR_STATUSES)[number];

/** VerificationOfPayeeError (RFC 7807 problem details): `type` and `code` are mandatory. */
export const EpcError = z
  .object({
    type: z.string().min(1),
    code: z.enum(EPC_ERROR_CODES),
    title: z.string().optional(),
    status: z.union(EPC_ERROR_STATUSES.map((status) => z.literal(status))).optional(),
    detail: z.string().optional(),
  })
  .openapi('VerificationOfPayeeError');
export type EpcError = z.infer<typeof EpcError>;

/** The problem type URI of a code (a URN: EPC publishes none, so the service names its own). */
export const epcErrorType = (code: EpcErrorCode): string =>
  `urn:vop:epc:error:${code.toLowerCase().replaceAll('_', '-')}`;

/** X-Request-ID: a UUID (any version). */
export const EpcRequestId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/);

/**
 * X-Request-Timestamp: ISO 8601 date-time with milliseconds, in UTC (`Z`) or with an offset
 * (`+01:00`), as clarified in v1.1.1. Sub-millisecond digits are accepted; seconds are not optional.
 */
export const EpcRequestTimestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3,9}(Z|[+-]\d{2}:\d{2})$/)
  .refine((value) => !Number.isNaN(Date.parse(value)))
  .openapi({
    description:
      'ISO 8601 with milliseconds, UTC or with an offset; within 5 minutes of the responder clock',
  });

export const EpcRequestHeaders = z.object({
  'X-Request-ID': EpcRequestId.openapi({ example: '3f0c6a1e-1d0b-4b8e-9a55-6c1c1a3c9a01' }),
  'X-Request-Timestamp': EpcRequestTimestamp,
});
