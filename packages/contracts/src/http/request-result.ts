import { Bic, HolderName, Iban, Lei } from '../identifiers.js';
import { RESPONDER_FAILURE_REASONS } from '../outcomes.js';
import { z } from '../zod.js';

/**
 * The payee's bank, when the caller knows it (the EPC family's partyAgent); without it the bank is
 * found from the IBAN's national bank code in the bank-code table (docs/api.md, "Payees at other banks").
 */
export const PayeeBankBic = Bic.openapi({
  description:
    "BIC of the payee's bank. Optional: without it the bank is found from the IBAN's bank code.",
});

/** The payee's bank a check was sent to (absent: decided against this bank's own accounts). */
export const RoutedToView = z
  .object({ bic: z.string(), participant: z.string().optional() })
  .openapi('RoutedTo');

export const VerifyRequest = z
  .strictObject({ name: HolderName, iban: Iban, lei: Lei.optional(), bic: PayeeBankBic.optional() })
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
    routed_to: RoutedToView.optional(),
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
    /** TIMEOUT or ERROR; a RESPONDER_* reason when the payee's bank could not answer. */
    reason: z.enum(['TIMEOUT', 'ERROR', ...RESPONDER_FAILURE_REASONS]),
    routed_to: RoutedToView.optional(),
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
