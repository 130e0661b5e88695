import {
  confidenceWord,
  NOAP_REASON,
  outcomeTable,
  responderFailureOf,
  type BatchResult,
  type NameMatchOutcome,
} from '@vop/contracts';
import type { FieldCipher } from '@vop/personal-data';
import { FAILED_OUTCOME, type EntryRow } from './status-read-model.js';

/**
 * One entry's answer in the batch words of docs/api.md's outcome table: the holder's name only on a
 * close match (decrypted here; gone once the holder was erased), a reason on NO_MATCH and ERROR.
 */
export function renderBatchResult(row: EntryRow, matchedName: string | undefined): BatchResult {
  // A failed entry has no score: LOW keeps `confidence` present for every result, as clients expect.
  if (row.outcome === FAILED_OUTCOME) {
    const reason = row.reasons?.[0] === 'TIMEOUT' ? 'VERIFICATION_TIMEOUT' : 'VERIFICATION_ERROR';
    return { id: row.entry_id, result: 'ERROR', confidence: 'LOW', reason };
  }
  const outcome = row.outcome as NameMatchOutcome;
  // The payee's bank could not answer: no outcome a payer could read as "wrong name".
  const responderFailure = outcome === 'NOAP' ? responderFailureOf(row.reasons ?? []) : undefined;
  if (responderFailure !== undefined)
    return { id: row.entry_id, result: 'ERROR', confidence: 'LOW', reason: responderFailure };
  return {
    id: row.entry_id,
    result: outcomeTable[outcome].batch,
    confidence: confidenceWord(row.score ?? 0),
    ...(outcome === 'CMTC' && matchedName !== undefined && { matchedName }),
    ...(outcome === 'NMTC' && { reason: 'NAME_MISMATCH' }),
    ...(outcome === 'NOAP' && { reason: NOAP_REASON }),
  };
}

/** The answered rows of a page, rendered; close-match names decrypted together. */
export async function renderBatchResults(
  cipher: FieldCipher,
  rows: EntryRow[],
): Promise<BatchResult[]> {
  const answered = rows.filter((row) => row.outcome !== null);
  const disclosed = answered.map((row) => (row.outcome === 'CMTC' ? row.matched_name : null));
  const names = await cipher.decryptMany(disclosed.filter((name): name is string => name !== null));
  let next = 0;
  return answered.map((row, index) =>
    renderBatchResult(row, disclosed[index] === null ? undefined : names[next++]),
  );
}
