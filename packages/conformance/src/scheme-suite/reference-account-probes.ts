import type { ReferenceAccount, ReferenceDataSet } from '../reference-data.js';
import type { ConformanceCase } from '../types.js';
import { post, verification } from './case-builders.js';

/** The accounts of the data set a holder's name is answered for: those neither closed nor blocked. */
export function openReferenceAccounts(dataSet: ReferenceDataSet): ReferenceAccount[] {
  return dataSet.accounts.filter((account) => (account.status ?? 'active') === 'active');
}

/**
 * One request per open account of the reference data set: its holder's exact name at its IBAN, MTCH.
 * After a load each account reaches the responder's deciding copy in its own time, so a run started
 * right after one asks them all before its first case, not only the reference person (a full suite ran
 * in ~1 s and met an account that was not there yet: NOAP).
 */
export function referenceAccountProbes(dataSet: ReferenceDataSet): ConformanceCase[] {
  return openReferenceAccounts(dataSet).map((account, index) => ({
    id: `S139-PROBE-${String(index + 1).padStart(2, '0')}`,
    group: 'name',
    description: `A reference account answered by its holder's name: MTCH`,
    request: post(verification({ name: account.name }, account.iban)),
    expect: { status: 200, partyNameMatch: 'MTCH' },
  }));
}
