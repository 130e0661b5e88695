import { HolderName, Iban, VisibleText } from '../identifiers.js';
import { PayeeBankBic } from './request-result.js';
import { z } from '../zod.js';

/** The most entries one batch may hold (specification, limits table). */
export const MAX_BATCH_ENTRIES = 10_000;

export const BatchId = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._:-]+$/)
  .openapi({ example: 'payroll-2026-03' });

/** One form 2 entry: the caller's id (unique in the batch), the IBAN, the payee name and, optionally, the payee's bank. */
export const BatchEntry = z
  .strictObject({
    id: VisibleText(100),
    iban: Iban,
    name: HolderName,
    bic: PayeeBankBic.optional(),
  })
  .openapi('BatchEntry');
export type BatchEntry = z.infer<typeof BatchEntry>;

/** Form 2: `POST /api/v1/batch` (JSON, or CSV / NDJSON uploads with `?batchId=`). */
export const BatchSubmission = z
  .strictObject({
    batchId: BatchId,
    // Entries are checked one by one, so a refusal names the entry (services/batch); the document says
    // what each must be.
    verifications: z
      .array(z.unknown())
      .min(1)
      .max(MAX_BATCH_ENTRIES)
      // Ids are unique, and an entry requires its id, so two equal entries are never valid.
      .openapi({ items: { $ref: '#/components/schemas/BatchEntry' }, uniqueItems: true }),
  })
  .openapi('BatchSubmission');

/** One form 1 entry (UK-style account number and sort code). */
export const AccountNumberEntry = z
  .strictObject({
    accountNumber: z
      .string()
      .trim()
      .regex(/^\d{6,10}$/),
    sortCode: z
      .string()
      .trim()
      .transform((value) => value.replaceAll('-', ''))
      .pipe(z.string().regex(/^\d{6}$/))
      .openapi({ type: 'string', pattern: '^\\d{2}-?\\d{2}-?\\d{2}$' }),
    accountName: HolderName,
  })
  .openapi('AccountNumberEntry');
export type AccountNumberEntry = z.infer<typeof AccountNumberEntry>;

/** Form 1: `POST /verify/batch`. */
export const AccountNumberBatchSubmission = z
  .strictObject({
    accounts: z
      .array(z.unknown())
      .min(1)
      .max(MAX_BATCH_ENTRIES)
      .openapi({ items: { $ref: '#/components/schemas/AccountNumberEntry' } }),
  })
  .openapi('AccountNumberBatchSubmission');

export const BatchStatusValue = z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']);
export type BatchStatusValue = z.infer<typeof BatchStatusValue>;

export const BatchAccepted = z
  .object({ batchId: z.string(), status: BatchStatusValue })
  .openapi('BatchAccepted');
export type BatchAccepted = z.infer<typeof BatchAccepted>;

export const BatchStatus = z
  .object({
    batchId: z.string(),
    status: BatchStatusValue,
    progress: z.object({
      total: z.number().int(),
      processed: z.number().int(),
      successful: z.number().int(),
      failed: z.number().int(),
    }),
    resultsReady: z.boolean(),
  })
  .openapi('BatchStatus');
export type BatchStatus = z.infer<typeof BatchStatus>;

/**
 * One entry's answer: the outcome words of the outcome table of docs/api.md (batch column), or ERROR for an
 * entry whose verification could not be completed (reason VERIFICATION_TIMEOUT or VERIFICATION_ERROR).
 */
export const BatchResult = z
  .object({
    id: z.string(),
    result: z.enum(['MATCH', 'PARTIAL_MATCH', 'NO_MATCH', 'ERROR']),
    confidence: z.enum(['HIGH', 'MEDIUM', 'LOW']),
    /** Only on a close match. */
    matchedName: z.string().optional(),
    /**
     * NAME_MISMATCH on NO_MATCH, ACCOUNT_NOT_FOUND_OR_CLOSED when the account is unknown or closed;
     * VERIFICATION_TIMEOUT or VERIFICATION_ERROR on ERROR.
     */
    reason: z.string().optional(),
  })
  .openapi('BatchResult');
export type BatchResult = z.infer<typeof BatchResult>;

export const BatchResults = z
  .object({
    batchId: z.string(),
    results: z.array(BatchResult),
    /** Present when more results follow: pass it as `?cursor=` for the next page. */
    nextCursor: z.string().optional(),
  })
  .openapi('BatchResults');
export type BatchResults = z.infer<typeof BatchResults>;
