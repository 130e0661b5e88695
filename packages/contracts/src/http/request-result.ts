import { HolderName, Iban, Lei } from '../identifiers.js';
import { z } from '../zod.js';

export const VerifyRequest = z
  .strictObject({ name: HolderName, iban: Iban, lei: Lei.optional() })
  .openapi('VerifyRequest');
export type VerifyRequest = z.infer<typeof VerifyRequest>;

export const VerificationReceipt = z
  .object({ request_id: z.uuid(), message: z.string() })
  .openapi('VerificationReceipt');

export const NameMatchCode = z.enum(['MATCH', 'PARTIAL', 'NO_MATCH']);
export const IdMatchCode = z.enum(['MATCH', 'NO_MATCH', 'NOT_APPLICABLE']);

export const VerificationResult = z
  .object({
    response_id: z.uuid(),
    request_id: z.uuid(),
    name_match_code: NameMatchCode,
    id_match_code: IdMatchCode,
    matched_name: z.string().optional(),
    reason: z.string().optional(),
    reasons: z.array(z.string()),
    response_timestamp: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .openapi('VerificationResult');
export type VerificationResult = z.infer<typeof VerificationResult>;

export const VerificationPending = z
  .object({ request_id: z.uuid(), status: z.literal('PENDING') })
  .openapi('VerificationPending');

/** A verification that could not be completed (it will not get an outcome): retry with a new request. */
export const VerificationFailure = z
  .object({
    request_id: z.uuid(),
    status: z.literal('FAILED'),
    reason: z.enum(['TIMEOUT', 'ERROR']),
    failed_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .openapi('VerificationFailure');
export type VerificationFailure = z.infer<typeof VerificationFailure>;

/** `GET /verify/{id}` accepts the bare UUID and the `vrf_<uuid>` form of the immediate family. */
export const VerificationIdParam = z
  .string()
  .transform((value) => (value.startsWith('vrf_') ? value.slice(4) : value))
  .pipe(z.uuid());
