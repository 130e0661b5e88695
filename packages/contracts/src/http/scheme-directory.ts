import { Bic, VisibleText } from '../identifiers.js';
import { z } from '../zod.js';

/**
 * A PSD2 authorisation number as QWACs carry it in organizationIdentifier (ETSI TS 119 495):
 * `PSD` + country + `-` + authority + `-` + the authority's number, e.g. PSDDE-BAFIN-123456.
 */
export const Psd2AuthorisationNumber = z
  .string()
  .trim()
  .regex(/^PSD[A-Z]{2}-[A-Z0-9]{1,8}-[\x21-\x7E]{1,64}$/, 'INVALID_AUTHORISATION_NUMBER')
  .openapi({ example: 'PSDDE-BAFIN-123456' });

/** Whether a URI is the base of an EPC API we may call: https, a host, no credentials, query or fragment. */
function isResponderBase(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    url.protocol === 'https:' &&
    url.hostname !== '' &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === '' &&
    !value.includes('?') &&
    !value.includes('#')
  );
}

/** One responder endpoint of a participant, as the EPC Directory Service lists it. */
export const ResponderEndpoint = z
  .strictObject({
    uri: z
      .string()
      .max(2000)
      // A URI is printable ASCII (RFC 3986): said as a pattern, so the document states it too.
      .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII')
      .refine(isResponderBase, {
        message: 'must be an absolute https: URL without credentials, query or fragment',
      })
      .openapi({
        example: 'https://vop.bank.example/vop/v1',
        description:
          'The base of the participant’s EPC API: the requester POSTs to `${uri}/payee-verifications`',
      }),
    priority: z
      .number()
      .int()
      .min(1)
      .max(99)
      .openapi({ description: '1 is called first; the next on a connection failure' }),
    apiVersion: z
      .string()
      .regex(/^\d+\.\d+(\.\d+)?$/, 'must be a version like 1.1.1')
      .openapi({ example: '1.1.1' }),
    validFrom: z.iso
      .datetime({
        offset: true,
        error: 'must be a date-time with an offset, e.g. 2026-12-01T00:00:00+01:00',
      })
      .optional(),
  })
  .openapi('ResponderEndpoint');
export type ResponderEndpoint = z.infer<typeof ResponderEndpoint>;

export const SchemeRole = z.enum(['requesting', 'responding']);
export type SchemeRole = z.infer<typeof SchemeRole>;

/** One scheme participant of the EPC Directory Service (EDS): who it is, its BICs, T(est) or L(ive). */
export const SchemeParticipant = z
  .strictObject({
    authorisationNumber: Psd2AuthorisationNumber,
    name: VisibleText(140).optional(),
    bics: z.array(Bic).min(1).max(500),
    environment: z.enum(['T', 'L']),
    roles: z.array(SchemeRole).min(1).max(2).optional().openapi({
      description:
        'The scheme roles the participant has; absent (a snapshot loaded before roles existed): both',
    }),
    endpoints: z.array(ResponderEndpoint).max(20).optional().openapi({
      description:
        'Where the participant answers as responding PSP; a responding participant without one cannot be asked',
    }),
  })
  .openapi('SchemeParticipant');
export type SchemeParticipant = z.infer<typeof SchemeParticipant>;

/** The roles of a participant: a snapshot loaded before roles existed names none, meaning both. */
export function rolesOf(participant: SchemeParticipant): readonly SchemeRole[] {
  return participant.roles ?? SchemeRole.options;
}

/**
 * The directory file the admin loads (PUT /admin/scheme-directory): the whole snapshot, replacing the
 * previous one. `snapshotId` names the EDS extract it came from; the service numbers loads itself.
 */
export const SchemeDirectorySnapshot = z
  .strictObject({
    snapshotId: VisibleText(100),
    publishedAt: z.iso.datetime({ offset: true }).optional(),
    participants: z.array(SchemeParticipant).max(50_000),
  })
  .openapi('SchemeDirectorySnapshot');
export type SchemeDirectorySnapshot = z.infer<typeof SchemeDirectorySnapshot>;

/** What a load answers, and what GET /admin/scheme-directory reports (without the participants). */
export const SchemeDirectoryVersion = z
  .object({
    version: z.number().int().positive(),
    snapshotId: z.string(),
    publishedAt: z.string().optional(),
    loadedAt: z.string(),
    loadedBy: z.string(),
    participants: z.number().int().nonnegative(),
  })
  .openapi('SchemeDirectoryVersion');
export type SchemeDirectoryVersion = z.infer<typeof SchemeDirectoryVersion>;

/** What a bank-code table load answers, and what GET /admin/bank-codes reports (without the rows). */
export const BankCodeTableVersion = z
  .object({
    version: z.number().int().positive(),
    tableId: z.string().optional(),
    loadedAt: z.string(),
    loadedBy: z.string(),
    entries: z.number().int().nonnegative(),
    countries: z
      .record(z.string(), z.number().int().positive())
      .openapi({ description: 'Bank codes per country', example: { DE: 3512, AT: 760 } }),
  })
  .openapi('BankCodeTableVersion');
export type BankCodeTableVersion = z.infer<typeof BankCodeTableVersion>;

/** The query of PUT /admin/bank-codes: the name of the national directory extract loaded. */
export const BankCodeTableQuery = z.strictObject({ tableId: VisibleText(100).optional() });
