import { AccountStatus, HolderType } from '../events/accounts.js';
import { AccountIdentifiers } from './accounts.js';
import { HolderName, Iban } from '../identifiers.js';
import { z } from '../zod.js';

/**
 * One account record of a bulk import (one NDJSON line, or one CSV row after its columns are read).
 * The import holds the bank's whole record: absent alternateNames means none, absent status active;
 * absent holderType and identifiers leave the stored ones as they are.
 */
export const AccountImportRecord = z
  .strictObject({
    iban: Iban,
    name: HolderName,
    holderType: HolderType.optional(),
    alternateNames: z.array(HolderName).max(20).optional(),
    identifiers: AccountIdentifiers.optional(),
    status: AccountStatus.optional(),
  })
  .openapi('AccountImportRecord');
export type AccountImportRecord = z.infer<typeof AccountImportRecord>;

/** The columns a CSV import may carry, in this order in the documentation; iban and name required. */
export const ACCOUNT_IMPORT_CSV_COLUMNS = [
  'iban',
  'name',
  'holderType',
  'alternateNames',
  'identifiers',
  'status',
] as const;

export const AccountImportStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED']);
export type AccountImportStatus = z.infer<typeof AccountImportStatus>;

/** Why a row was refused: the row number (1 = first record), the field, a code; never the value. */
export const AccountImportRowError = z.object({
  row: z.number().int().positive(),
  field: z.string(),
  code: z.enum([
    'NOT_JSON',
    // A key twice in one object of the line (hostile-input.ts: never the last one silently).
    'DUPLICATE_KEY',
    'NOT_A_RECORD',
    'MISSING_FIELD',
    'INVALID_IBAN',
    'INVALID_FIELD',
    'UNKNOWN_FIELD',
    'CONFLICT',
    'ERASED',
  ]),
});
export type AccountImportRowError = z.infer<typeof AccountImportRowError>;

export const AccountImportRows = z.object({
  read: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
});
export type AccountImportRows = z.infer<typeof AccountImportRows>;

export const AccountImportResponse = z
  .object({
    importId: z.uuid(),
    status: AccountImportStatus,
    format: z.enum(['ndjson', 'csv']),
    statusUrl: z.string(),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
    rows: AccountImportRows,
    /** The first row errors, in row order; `errorsTruncated` when there were more. */
    errors: z.array(AccountImportRowError),
    errorsTruncated: z.boolean(),
    /** Why a FAILED import stopped (e.g. the upload was cut off); rows before it stay applied. */
    failure: z.string().optional(),
  })
  .openapi('AccountImportResponse');
export type AccountImportResponse = z.infer<typeof AccountImportResponse>;
