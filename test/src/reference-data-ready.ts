import { loadReferenceData, openReferenceAccounts } from '@vop/conformance';
import { eventually, type HttpsClient } from '@vop/testing';
import { schemeRequest } from './embedded/fixtures.js';

/**
 * Waits until every open account of the reference data set (1.0.0) is answered MTCH for its holder's
 * name. `/test/data/load` answers once the accounts are recorded; they reach the deciding process's
 * copy of the accounts through the bus a moment later, not necessarily together, so one account
 * answered says nothing of the others (a suite run right after saw the last one as unknown: NOAP).
 */
export async function referenceDataAnswered(client: HttpsClient, timeoutMs: number): Promise<void> {
  const open = openReferenceAccounts(await loadReferenceData('1.0.0'));
  await eventually(
    async () => {
      for (const account of open) {
        const answer = await client.post('/vop/verify', schemeRequest(account.name, account.iban));
        if (answer.body?.partyNameMatch !== 'MTCH') return undefined;
      }
      return true;
    },
    { timeoutMs, intervalMs: 100, what: 'every account of the reference data answered' },
  );
}
