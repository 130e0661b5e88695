import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { passesModulusCheck } from '@vop/contracts';
import { britishIban, eventually } from '@vop/testing';
import { startCluster, type Cluster } from './cluster.js';
import { changeThenCheck, importThenCheck, writeThenCheck } from '../read-your-writes.js';

const SORT_CODE = '089999';

/** Account numbers that pass VocaLink's modulus check for SORT_CODE, found by search. */
function validAccountNumbers(count: number, from: number): string[] {
  const found: string[] = [];
  for (let candidate = from; found.length < count; candidate++)
    if (passesModulusCheck(SORT_CODE, String(candidate))) found.push(String(candidate));
  return found;
}

/** The observations of account_copy_lag_seconds per copy on a /metrics page. */
function lagObservations(page: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, copy, count] of page.matchAll(
    /^account_copy_lag_seconds_count\{[^}]*copy="([^"]+)"[^}]*\} (\d+)/gm,
  ))
    counts.set(copy as string, Number(count));
  return counts;
}

describe('read your writes, distributed: the gateway that took an account write decides against it at once', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ prefix: 'ryw' });
  });
  after(async () => cluster?.stop());

  it('given 50 accounts written 8 at a time, when each is checked the moment its write is answered, then none answers NOAP', async () => {
    assert.deepEqual(
      await writeThenCheck(cluster, { tries: 50, concurrency: 8, firstAccount: 940_000 }),
      [],
    );
  });

  it('given an account renamed, closed and deleted, then the next check sees each change', async () => {
    await changeThenCheck(cluster, 940_100);
  });

  it('given a bulk import answered, then each of its records is verifiable', async () => {
    await importThenCheck(cluster, 940_200);
  });

  it("given a GB IBAN written without domesticAccount, then family D finds it by the IBAN's own numbers at once; an explicit one wins", async () => {
    const [own, ibanPart, written] = validAccountNumbers(3, 52_000_000);
    const ask = (accountNumber: string, accountName: string) =>
      cluster.client.post('/verify', { accountNumber, sortCode: SORT_CODE, accountName });
    const plain = await cluster.admin.post('/accounts', {
      iban: britishIban(SORT_CODE, own as string),
      name: 'Imogen Price',
    });
    assert.equal(plain.status, 201, plain.text);
    const found = await ask(own as string, 'Imogen Price');
    assert.deepEqual([found.body.match, found.body.status], ['FULL', 'ACTIVE'], found.text);

    const explicit = await cluster.admin.post('/accounts', {
      iban: britishIban(SORT_CODE, ibanPart as string),
      name: 'Rupert Hale',
      domesticAccount: { sortCode: SORT_CODE, accountNumber: written },
    });
    assert.equal(explicit.status, 201, explicit.text);
    const byWritten = await ask(written as string, 'Rupert Hale');
    assert.equal(byWritten.body.match, 'FULL', byWritten.text);
    const byIban = await ask(ibanPart as string, 'Rupert Hale');
    assert.deepEqual([byIban.body.match, byIban.body.status], ['NONE', 'NOT_FOUND']);

    // The batch service's copy follows the account events: a form 1 entry finds the account once
    // that copy has it (its lag is the metric below).
    const entry = await eventually(
      async () => {
        const submitted = await cluster.client.post('/verify/batch', {
          accounts: [{ accountNumber: own, sortCode: SORT_CODE, accountName: 'Imogen Price' }],
        });
        assert.equal(submitted.status, 202, submitted.text);
        const batchId = submitted.body.batchId as string;
        await eventually(
          async () =>
            (await cluster.client.get(`/api/v1/batch/${batchId}`)).body?.status === 'COMPLETED'
              ? true
              : undefined,
          { timeoutMs: 60_000, intervalMs: 100, what: `batch ${batchId} completed` },
        );
        const results = await cluster.client.get(`/api/v1/batch/${batchId}/results`);
        const [first] = results.body.results as { result: string }[];
        return first?.result === 'MATCH' ? first : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'a form 1 entry by a GB IBAN of its own' },
    );
    assert.equal(entry.result, 'MATCH');
  });

  it("measures each copy's lag behind the account events, and the gateway's own copy is never late", async () => {
    const namespace = cluster.namespace.name;
    const internal = async (service: string) =>
      lagObservations(await (await fetch(`${cluster.internalUrls.get(service)}/metrics`)).text());
    await eventually(
      async () => {
        const batch = await internal('batch');
        const matching = await internal('matching');
        // The batch copy's lag also covers its domestic accounts, kept from the same deliveries.
        return (batch.get(`${namespace}batch-decision-accounts`) ?? 0) > 0 &&
          (matching.get(`${namespace}matching-accounts`) ?? 0) > 0
          ? true
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'lag observed by every copy behind the gateway' },
    );
    const gateway = lagObservations((await cluster.client.get('/metrics')).text);
    assert.equal(gateway.get(`${namespace}gateway-decision-accounts`) ?? 0, 0);
  });
});
