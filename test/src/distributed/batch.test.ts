import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Topics } from '@vop/contracts';
import { createKafkaBus } from '@vop/messaging';
import { eventually } from '@vop/testing';
import {
  assertAnsweredOnce,
  batchCompleted,
  batchEntries,
  startBatchCluster,
  type BatchCluster,
} from './batch-cluster.js';

describe('distributed batches: gateway, two matching instances, the batch service, real Kafka and PostgreSQL', () => {
  let cluster: BatchCluster;
  before(async () => {
    cluster = await startBatchCluster({ matchingInstances: 2, accounts: 50 });
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

    const form1 = await cluster.client.post('/verify/batch', {
      accounts: [{ accountNumber: '12345678', sortCode: '12-34-56', accountName: 'Jane Doe' }],
    });
    assert.equal(form1.status, 202, form1.text);
    await batchCompleted(cluster.client, form1.body.batchId);
  });
});
