import { NOAP_REASON, type AccountNumberEntry } from '@vop/contracts';
import type { EntryJudgement } from './decider.js';

/**
 * Judges form 1 entries (account number + sort code). Family D (account-number verification) will
 * plug in here: a judge that looks the account up by sort code and number and matches the name, or
 * one that fans the entries out to matching as the form 2 path does. Until account records carry a
 * sort code, no account is known by one, so every entry answers as an unknown account does (README's
 * outcome table: NOAP, read as NO_MATCH with a reason).
 */
export type AccountNumberJudge = (
  entries: { entryId: string; entry: AccountNumberEntry }[],
) => Promise<EntryJudgement[]>;

export const unknownAccountJudge: AccountNumberJudge = async (entries) =>
  entries.map(({ entryId }) => ({
    entryId,
    outcome: 'NOAP',
    score: 0,
    reasons: ['ACCOUNT_NOT_FOUND', NOAP_REASON],
  }));
