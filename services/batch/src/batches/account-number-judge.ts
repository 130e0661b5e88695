import { NOAP_REASON, type AccountNumberEntry } from '@vop/contracts';
import type { DomesticAccount } from '../domestic-accounts/read-model.js';
import type { EntryJudgement } from './decider.js';

/** A form 1 entry whose account the bank holds: verified by matching under the account's IBAN. */
export interface AccountNumberLookup {
  entryId: string;
  iban: string;
  name: string;
}

const pairKey = (sortCode: string, accountNumber: string): string => `${sortCode}/${accountNumber}`;

/**
 * Family D for form 1 entries (pure): an entry whose sort code and account number name a live,
 * open account is looked up (matching decides the name, as for a single family D check); one the
 * bank does not hold, or whose account is closed, is judged at once as NOAP (docs/api.md's outcome
 * table: NO_MATCH, reason ACCOUNT_NOT_FOUND_OR_CLOSED). A blocked account is looked up, as family D
 * does.
 */
export function judgeAccountNumberEntries(
  entries: readonly { entryId: string; entry: AccountNumberEntry }[],
  accounts: readonly DomesticAccount[],
): { judgements: EntryJudgement[]; lookups: AccountNumberLookup[] } {
  const byPair = new Map(accounts.map((a) => [pairKey(a.sortCode, a.accountNumber), a]));
  const judgements: EntryJudgement[] = [];
  const lookups: AccountNumberLookup[] = [];
  for (const { entryId, entry } of entries) {
    const account = byPair.get(pairKey(entry.sortCode, entry.accountNumber));
    if (account !== undefined && account.status !== 'closed') {
      lookups.push({ entryId, iban: account.iban, name: entry.accountName });
      continue;
    }
    const missing = account === undefined ? 'ACCOUNT_NOT_FOUND' : 'ACCOUNT_CLOSED';
    judgements.push({ entryId, outcome: 'NOAP', score: 0, reasons: [missing, NOAP_REASON] });
  }
  return { judgements, lookups };
}
