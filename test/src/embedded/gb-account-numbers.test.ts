import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { passesModulusCheck } from '@vop/contracts';
import { britishIban, eventually, type HttpsClient } from '@vop/testing';
import { runEmbedded, type RunningEmbedded } from './fixtures.js';

const SORT_CODE = '089999';

/** Account numbers that pass VocaLink's modulus check for SORT_CODE, found by search. */
function validAccountNumbers(count: number, from: number): string[] {
  const found: string[] = [];
  for (let candidate = from; found.length < count; candidate++) {
    const accountNumber = String(candidate).padStart(8, '0');
    if (passesModulusCheck(SORT_CODE, accountNumber)) found.push(accountNumber);
  }
  return found;
}

/** Family D's answer for a sort code and account number, once the account's write is answered. */
async function familyD(
  client: HttpsClient,
  accountNumber: string,
  accountName: string,
): Promise<{ match: string; status: string }> {
  const answer = await client.post('/verify', {
    accountNumber,
    sortCode: SORT_CODE,
    accountName,
  });
  assert.equal(answer.status, 200, answer.text);
  return { match: answer.body.match as string, status: answer.body.status as string };
}

describe('GB IBANs are found by their own sort code and account number (family D, form 1 batches)', () => {
  let running: RunningEmbedded;
  const [own, ibanPart, written, batchOwn] = validAccountNumbers(4, 31_926_800);

  before(async () => {
    running = await runEmbedded();
  });
  after(async () => running?.stop());

  it('given a GB IBAN written without domesticAccount, POST /verify by its sort code and account number finds it', async () => {
    const created = await running.admin.post('/accounts', {
      iban: britishIban(SORT_CODE, own as string),
      name: 'Olivia Bennett',
    });
    assert.equal(created.status, 201, created.text);
    const answer = await eventually(
      async () => {
        const found = await familyD(running.client, own as string, 'Olivia Bennett');
        return found.match === 'FULL' ? found : undefined;
      },
      { what: "a check by the GB IBAN's own account number" },
    );
    assert.equal(answer.status, 'ACTIVE');
  });

  it("given an explicit domesticAccount, that one finds the account and the IBAN's own does not", async () => {
    const created = await running.admin.post('/accounts', {
      iban: britishIban(SORT_CODE, ibanPart as string),
      name: 'Harriet Walsh',
      domesticAccount: { sortCode: SORT_CODE, accountNumber: written },
    });
    assert.equal(created.status, 201, created.text);
    await eventually(
      async () =>
        (await familyD(running.client, written as string, 'Harriet Walsh')).match === 'FULL'
          ? true
          : undefined,
      { what: 'a check by the written domestic account' },
    );
    const byIban = await familyD(running.client, ibanPart as string, 'Harriet Walsh');
    assert.deepEqual(byIban, { match: 'NONE', status: 'NOT_FOUND' });
  });

  it('given a GB IBAN written without domesticAccount, a form 1 batch entry by its sort code and account number matches', async () => {
    const created = await running.admin.post('/accounts', {
      iban: britishIban(SORT_CODE, batchOwn as string),
      name: 'Thomas Clarke',
    });
    assert.equal(created.status, 201, created.text);
    const result = await eventually(
      async () => {
        const submitted = await running.client.post('/verify/batch', {
          accounts: [
            { accountNumber: batchOwn, sortCode: SORT_CODE, accountName: 'Thomas Clarke' },
          ],
        });
        assert.equal(submitted.status, 202, submitted.text);
        const batchId = submitted.body.batchId as string;
        await eventually(
          async () => {
            const status = await running.client.get(`/api/v1/batch/${batchId}`);
            return status.body?.status === 'COMPLETED' ? true : undefined;
          },
          { timeoutMs: 60_000, what: `batch ${batchId} completed` },
        );
        const results = await running.client.get(`/api/v1/batch/${batchId}/results`);
        assert.equal(results.status, 200, results.text);
        const [entry] = results.body.results as { result: string }[];
        return entry?.result === 'MATCH' ? entry : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'a form 1 entry that matches' },
    );
    assert.equal(result.result, 'MATCH');
  });
});
