import { HolderName, passesModulusCheck, SortCode, UkAccountNumber } from '../identifiers.js';
import { z } from '../zod.js';

/** Family D (`POST /verify` with an account number and sort code). */
export const AccountNumberVerifyRequest = z
  .strictObject({
    accountNumber: UkAccountNumber,
    sortCode: SortCode,
    accountName: HolderName,
    /** What the payer believes the account is (UK Confirmation of Payee); answers BANM/PANM when it differs. */
    accountType: z.enum(['personal', 'business']).optional(),
  })
  .refine((value) => passesModulusCheck(value.sortCode, value.accountNumber), {
    message: 'INVALID_ACCOUNT_NUMBER',
    path: ['accountNumber'],
  })
  .openapi('AccountNumberVerifyRequest');
export type AccountNumberVerifyRequest = z.infer<typeof AccountNumberVerifyRequest>;

/**
 * UK Confirmation-of-Payee reason codes given beside the answer (docs/api.md, "Account-number verification"):
 * ANNM no match; MBAM close match; BANM / PANM the name matches but the account is a business / personal
 * one, not what the payer said; BAMM / PAMM the same for a close match; AC01 no such account (or closed);
 * ACNS the account cannot be checked (blocked).
 */
export const CopReasonCode = z.enum([
  'ANNM',
  'MBAM',
  'BANM',
  'PANM',
  'BAMM',
  'PAMM',
  'AC01',
  'ACNS',
]);
export type CopReasonCode = z.infer<typeof CopReasonCode>;

export const DomesticAccountStatus = z.enum(['ACTIVE', 'CLOSED', 'BLOCKED', 'NOT_FOUND']);
export type DomesticAccountStatus = z.infer<typeof DomesticAccountStatus>;

export const AccountNumberVerifyResponse = z
  .object({
    match: z.enum(['FULL', 'PARTIAL', 'NONE']),
    suggestedName: z.string().optional(),
    confidence: z.number().int().min(0).max(100),
    status: DomesticAccountStatus,
    reasonCode: CopReasonCode.optional(),
    verificationId: z.uuid(),
  })
  .openapi('AccountNumberVerifyResponse');
export type AccountNumberVerifyResponse = z.infer<typeof AccountNumberVerifyResponse>;
