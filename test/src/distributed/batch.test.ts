import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Topics } from '@vop/contracts';
import { createKafkaBus } from '@vop/messaging';
import type { SqlExecutor } from '@vop/event-store';
import { eventually, germanIban } from '@vop/testing';
import {
  assertAnsweredOnce,
  batchCompleted,
  batchEntries,
  startBatchCluster,
  type BatchCluster,
  type DomesticHolder,
} from './batch-cluster.js';

const rebuildCommand = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../services/batch/dist/rebuild.js',
);

/** Every row of the batch read models, in a stable order. */
async function batchReadModels(sql: SqlExecutor) {
  const { rows: batches } = await sql.query(
    `SELECT * FROM batch.batches ORDER BY participant, batch_id`,
  );
  const { rows: entries } = await sql.query(
    `SELECT * FROM batch.batch_entries ORDER BY participant, batch_id, seq`,
  );
  return { batches, entries };
}

describe('distributed batches: gateway, matching per role (single, batch), the batch service, real Kafka and PostgreSQL', () => {
  let cluster: BatchCluster;
  before(async () => {
    // Matching as docs/operations.md starts it: one process for single checks, one (niced) for batch entries.
    cluster = await startBatchCluster({
      matchingInstances: 2,
      matchingRoles: ['single', 'batch'],
      accounts: 50,
      domesticAccounts: 2,
    });
  });
  after(async () => cluster?.stop());

  it('a 2,000-entry batch completes through the batch topic, each entry answered once; batch.completed on Kafka', async () => {
    const bus = createKafkaBus({ brokers: cluster.brokers.split(','), clientId: 'batch-e2e' });
    const completions: { batchId: string; total: number; participant: string }[] = [];
    const subscription = await bus.subscribe({
      groupId: `${cluster.namespace}batch-e2e-listener`,
      topics: [`${cluster.namespace}${Topics.batchEvents}`],
      fromBeginning: true,
      handler: async (message) => {
        const envelope = JSON.parse(message.value) as { type: string; data: never };
        if (envelope.type === 'BatchCompleted') completions.push(envelope.data);
      },
    });
    try {
      const entries = batchEntries(cluster.holders, 2000);
      const submitted = await cluster.client.post('/api/v1/batch', {
        batchId: 'dist-1',
        verifications: entries,
      });
      assert.equal(submitted.status, 202, submitted.text);
      const status = await batchCompleted(cluster.client, 'dist-1');
      assert.deepEqual(status.progress, {
        total: 2000,
        processed: 2000,
        successful: 2000,
        failed: 0,
      });
      await assertAnsweredOnce(cluster.client, 'dist-1', entries);
      const event = await eventually(
        async () => completions.find((completion) => completion.batchId === 'dist-1'),
        { timeoutMs: 30_000, what: 'BatchCompleted on the batch-events topic' },
      );
      assert.equal(event.total, 2000);
      assert.equal(typeof event.participant, 'string');
      assert.equal(completions.filter((c) => c.batchId === 'dist-1').length, 1);
    } finally {
      await subscription.close();
      await bus.close();
    }
  });

  it('through the edge: 413 BATCH_TOO_LARGE while streaming, 404 for another participant, CSV upload', async () => {
    const tooMany = batchEntries(cluster.holders, 10_001);
    const refused = await cluster.client.post('/api/v1/batch', {
      batchId: 'dist-big',
      verifications: tooMany,
    });
    assert.equal(refused.status, 413, refused.text);
    assert.equal(refused.body.error, 'BATCH_TOO_LARGE');
    assert.equal((await cluster.client.get('/api/v1/batch/dist-big')).status, 404);
    assert.equal((await cluster.admin.get('/api/v1/batch/dist-1')).status, 404);

    const entries = batchEntries(cluster.holders, 30);
    const csv = ['id,iban,name', ...entries.map((e) => `${e.id},${e.iban},"${e.name}"`)];
    const uploaded = await cluster.client.request('POST', '/api/v1/batch?batchId=dist-csv', {
      rawBody: csv.join('\n'),
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(uploaded.status, 202, uploaded.text);
    await batchCompleted(cluster.client, 'dist-csv');
    await assertAnsweredOnce(cluster.client, 'dist-csv', entries);
  });

  it('form 1 as family D: known accounts answer by name, an unknown one NO_MATCH', async () => {
    const [known, other] = cluster.domesticHolders as [DomesticHolder, DomesticHolder];
    const form1 = await cluster.client.post('/verify/batch', {
      accounts: [
        { accountNumber: known.accountNumber, sortCode: '08-99-99', accountName: known.name },
        { accountNumber: other.accountNumber, sortCode: '089999', accountName: 'Jane Doe' },
        { accountNumber: '12345678', sortCode: '12-34-56', accountName: 'Jane Doe' },
      ],
    });
    assert.equal(form1.status, 202, form1.text);
    const status = await batchCompleted(cluster.client, form1.body.batchId);
    assert.deepEqual(status.progress, { total: 3, processed: 3, successful: 3, failed: 0 });
    const results = await cluster.client.get(`/api/v1/batch/${form1.body.batchId}/results`);
    assert.equal(results.status, 200, results.text);
    assert.deepEqual(results.body.results, [
      { id: '1', result: 'MATCH', confidence: 'HIGH' },
      { id: '2', result: 'NO_MATCH', confidence: 'LOW', reason: 'NAME_MISMATCH' },
      { id: '3', result: 'NO_MATCH', confidence: 'LOW', reason: 'ACCOUNT_NOT_FOUND_OR_CLOSED' },
    ]);
  });

  it("an account renamed after the batch service's copy kept its row: the next batch answers by the new name", async () => {
    // The batch service decides its entries against its own copy of the accounts and keeps the rows it
    // read; it forgets them when the copy's projection transaction notifies
    // (packages/verifications/src/deciding/account-projection-consumer.ts).
    const iban = germanIban(626_262);
    const opened = await cluster.admin.post('/accounts', { iban, name: 'Liv Andersson' });
    assert.equal(opened.status, 201, opened.text);
    let batches = 0;
    const resultFor = async (name: string): Promise<string | undefined> => {
      const batchId = `renamed-${++batches}`;
      const submitted = await cluster.client.post('/api/v1/batch', {
        batchId,
        verifications: [{ id: 'only', iban, name }],
      });
      assert.equal(submitted.status, 202, submitted.text);
      await batchCompleted(cluster.client, batchId);
      const results = await cluster.client.get(`/api/v1/batch/${batchId}/results`);
      return results.body.results[0]?.result as string | undefined;
    };
    await eventually(
      async () => ((await resultFor('Liv Andersson')) === 'MATCH' ? true : undefined),
      {
        timeoutMs: 30_000,
        what: 'the account matched by its first name',
      },
    );

    const renamed = await cluster.admin.put(`/api/accounts/${opened.body.id}`, {
      name: 'Nora Berg',
    });
    assert.equal(renamed.status, 200, renamed.text);
    // Without the notification the copy would answer from its row for up to a minute.
    await eventually(
      async () => ((await resultFor('Liv Andersson')) === 'NO_MATCH' ? true : undefined),
      {
        timeoutMs: 30_000,
        what: 'the old name no longer matching',
      },
    );
    assert.equal(await resultFor('Nora Berg'), 'MATCH');
  });

  it('the rebuild command (PostgreSQL, Kafka): with the batch service stopped, the read models come back the same from its events and the account events', async () => {
    const before = await batchReadModels(cluster.batchDb);
    const domesticAccounts = () =>
      cluster.batchDb
        .query(`SELECT * FROM batch.domestic_accounts ORDER BY account_id`)
        .then(({ rows }) => rows);
    const accountsBefore = await domesticAccounts();
    assert.ok(before.batches.length >= 3, 'the batches of the tests above');
    assert.ok(accountsBefore.length >= 2, 'the domestic accounts of the form 1 test');
    await cluster.processes.get('batch')?.stop();
    await cluster.batchDb.query(`UPDATE batch.batches SET status = 'PENDING', processed = 0`);
    await cluster.batchDb.query(`UPDATE batch.batch_entries SET outcome = NULL`);
    await cluster.batchDb.query(`UPDATE batch.domestic_accounts SET status = 'closed'`);

    const { stdout } = await promisify(execFile)(process.execPath, [rebuildCommand], {
      env: {
        ...process.env,
        DATABASE_URL: cluster.batchDatabaseUrl,
        KAFKA_BROKERS: cluster.brokers,
        VOP_KAFKA_NAMESPACE: cluster.namespace,
      },
    });

    assert.match(stdout, new RegExp(`${before.batches.length} batches`));
    assert.match(stdout, /domestic accounts read model rebuilt from \d+ account events/);
    assert.deepEqual(await batchReadModels(cluster.batchDb), before);
    assert.deepEqual(await domesticAccounts(), accountsBefore);
    cluster.start('batch');
    const status = await batchCompleted(cluster.client, 'dist-1');
    assert.equal(status.progress.processed, 2000);
  });
});
