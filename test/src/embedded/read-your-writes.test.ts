import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { passesModulusCheck } from '@vop/contracts';
import { britishIban, eventually, germanIban } from '@vop/testing';
import { runEmbedded, type RunningEmbedded } from './fixtures.js';
import { changeThenCheck, importThenCheck, inPool, writeThenCheck } from '../read-your-writes.js';

describe('read your writes, embedded: a check sent once an account write was answered sees it', () => {
  let running: RunningEmbedded;
  before(async () => {
    running = await runEmbedded();
  });
  after(async () => running?.stop());

  it('given 50 accounts written 8 at a time, when each is checked the moment its write is answered, then none answers NOAP', async () => {
    assert.deepEqual(
      await writeThenCheck(running, { tries: 50, concurrency: 8, firstAccount: 930_000 }),
      [],
    );
  });

  it('given an account renamed, closed and deleted, then the next check sees each change', async () => {
    await changeThenCheck(running, 930_100);
  });

  it('given a bulk import answered, then each of its records is verifiable', async () => {
    await importThenCheck(running, 930_200);
  });

  it("given an account written, closed and deleted, then analytics' account status has each change at once", async () => {
    // Embedded, analytics' accounts are written with the account write, as the copies are: the relay
    // does not publish the account events at all (docs/architecture.md, "Account events read at commit").
    const created = await running.admin.post('/accounts', {
      iban: germanIban(930_400),
      name: 'Analytics Reader',
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const status = async () => {
      const response = await running.admin.get(`/account/${id}/status`);
      return response.status === 200 ? response.body.status : response.status;
    };
    assert.equal(await status(), 'active');
    const closed = await running.admin.put(`/api/accounts/${id}`, { status: 'closed' });
    assert.equal(closed.status, 200, closed.text);
    assert.equal(await status(), 'closed');
    const deleted = await running.admin.delete(`/api/accounts/${id}`);
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(await status(), 404);
  });

  it('given accounts just written, then batch entries (form 2) sent at once match them', async () => {
    const misses: string[] = [];
    await inPool(10, 5, async (index) => {
      const iban = germanIban(930_300 + index);
      const created = await running.admin.post('/accounts', { iban, name: 'Batch Reader' });
      assert.equal(created.status, 201, created.text);
      const result = await batchResult(running, '/api/v1/batch', {
        batchId: `read-your-writes-${index}`,
        verifications: [{ id: 'only', iban, name: 'Batch Reader' }],
      });
      if (result !== 'MATCH') misses.push(`try ${index}: ${result}`);
    });
    assert.deepEqual(misses, []);
  });

  it('given GB accounts just written, then form 1 entries sent at once by their account numbers match them', async () => {
    const sortCode = '089999';
    const accountNumbers: string[] = [];
    for (let candidate = 41_000_000; accountNumbers.length < 5; candidate++)
      if (passesModulusCheck(sortCode, String(candidate))) accountNumbers.push(String(candidate));
    const misses: string[] = [];
    await inPool(accountNumbers.length, 5, async (index) => {
      const accountNumber = accountNumbers[index] as string;
      const created = await running.admin.post('/accounts', {
        iban: britishIban(sortCode, accountNumber),
        name: 'Sort Code Reader',
      });
      assert.equal(created.status, 201, created.text);
      const result = await batchResult(running, '/verify/batch', {
        accounts: [{ accountNumber, sortCode, accountName: 'Sort Code Reader' }],
      });
      if (result !== 'MATCH') misses.push(`try ${index}: ${result}`);
    });
    assert.deepEqual(misses, []);
  });
});

describe('read your writes, embedded, with single checks left to matching', () => {
  let running: RunningEmbedded;
  before(async () => {
    running = await runEmbedded({ env: { VOP_SINGLE_CHECKS_DECIDED_BY: 'matching' } });
  });
  after(async () => running?.stop());

  it('given 20 accounts written 8 at a time, when each is checked at once, then the copy matching decides against (the one copy embedded) has each', async () => {
    assert.deepEqual(
      await writeThenCheck(running, { tries: 20, concurrency: 8, firstAccount: 931_000 }),
      [],
    );
  });
});

/** Submits a one-entry batch and returns its entry's result once the batch completed. */
async function batchResult(running: RunningEmbedded, path: string, body: object): Promise<string> {
  const submitted = await running.client.post(path, body);
  assert.equal(submitted.status, 202, submitted.text);
  const batchId = submitted.body.batchId as string;
  await eventually(
    async () => {
      const status = await running.client.get(`/api/v1/batch/${batchId}`);
      return status.body?.status === 'COMPLETED' ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 50, what: `batch ${batchId} completed` },
  );
  const results = await running.client.get(`/api/v1/batch/${batchId}/results`);
  assert.equal(results.status, 200, results.text);
  return (results.body.results as { result: string }[])[0]?.result ?? 'none';
}
