import { csvRecord } from '../csv-record.js';
import type { BatchResult } from './batches.js';

/** The columns of a batch's results as CSV, in order (docs/batches-and-accounts.md). */
export const BATCH_RESULT_CSV_COLUMNS = [
  'id',
  'result',
  'confidence',
  'reason',
  'matchedName',
] as const satisfies readonly (keyof BatchResult)[];

/** The header line of a batch's results as CSV. */
export const batchResultsCsvHeader = (): string => csvRecord(BATCH_RESULT_CSV_COLUMNS);

/**
 * One result as a CSV line, written the same by the service's download and by `vop-batch`: the entry id
 * is the caller's and matchedName the bank's record, so either may begin like a formula.
 */
export const batchResultCsvRecord = (result: BatchResult): string =>
  csvRecord(BATCH_RESULT_CSV_COLUMNS.map((column) => result[column]));
