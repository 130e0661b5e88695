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

/** One scheme participant of the EPC Directory Service (EDS): who it is, its BICs, T(est) or L(ive). */
export const SchemeParticipant = z
  .strictObject({
    authorisationNumber: Psd2AuthorisationNumber,
    name: VisibleText(140).optional(),
    bics: z.array(Bic).min(1).max(500),
    environment: z.enum(['T', 'L']),
  })
  .openapi('SchemeParticipant');
export type SchemeParticipant = z.infer<typeof SchemeParticipant>;

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
