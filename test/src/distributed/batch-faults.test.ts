import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import {
  assertAnsweredOnce,
  batchCompleted,
  batchEntries,
  startBatchCluster,
  type BatchCluster,
} from './batch-cluster.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const kafkaScript = path.join(repoRoot, 'infra/local/kafka.sh');
const run = promisify(execFile);
const ENTRIES = 4000;

/**
 * Faults in the middle of a batch (real Kafka and PostgreSQL, every service its own process): each
 * ends with the batch COMPLETED and every entry answered exactly once. The broker is the one
 * infra/local/kafka.sh runs for this worktree (VOP_KAFKA_PORT), restarted by the same script.
 */
/** Submits a batch and waits until it is under way (some entries answered, not all). */
async function batchUnderWay(cluster: BatchCluster, batchId: string) {
  const entries = batchEntries(cluster.holders, ENTRIES);
  const submitted = await cluster.client.post('/api/v1/batch', {
    batchId,
    verifications: entries,
  });
  assert.equal(submitted.status, 202, submitted.text);
  const progress = await eventually(
    async () => {
      const status = await cluster.client.get(`/api/v1/batch/${batchId}`);
      return status.body?.progress?.processed > 0 ? status.body : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 20, what: `${batchId} under way` },
  );
  return { entries, progress };
}

/** Waits for COMPLETED; on a timeout the failure shows what every process printed. */
async function completedOrExplain(cluster: BatchCluster, batchId: string, timeoutMs: number) {
  try {
    return await batchCompleted(cluster.client, batchId, timeoutMs);
  } catch (error) {
    const { rows } = await cluster.batchDb.query(
      `SELECT status, processed, total FROM batch.batches WHERE batch_id = $1`,
      [batchId],
    );
    throw new Error(`${String(error)}; read model ${JSON.stringify(rows)}\n${cluster.outputs()}`);
  }
}

async function processedNow(cluster: BatchCluster, batchId: string): Promise<number> {
  const { rows } = await cluster.batchDb.query<{ processed: number }>(
    `SELECT processed FROM batch.batches WHERE batch_id = $1`,
    [batchId],
  );
  return rows[0]?.processed ?? 0;
}

describe('distributed batches under faults, entries decided by matching (the round trip through Kafka): kill -9 of batch, kill -9 of matching, broker restart', () => {
  let cluster: BatchCluster;
  before(async () => {
    cluster = await startBatchCluster({
      matchingInstances: 2,
      accounts: 50,
      batchEntriesDecidedBy: 'matching',
    });
  });
  after(async () => cluster?.stop());

  it('kill -9 of the batch service mid-batch: restarted, the batch completes, each entry once', async () => {
    const { entries } = await batchUnderWay(cluster, 'fault-batch');
    await cluster.processes.get('batch')?.kill();
    assert.ok(
      (await processedNow(cluster, 'fault-batch')) < ENTRIES,
      'killed before the batch completed',
    );
    cluster.start('batch');
    const status = await completedOrExplain(cluster, 'fault-batch', 240_000);
    assert.equal(status.progress.processed, ENTRIES);
    assert.equal(status.progress.successful, ENTRIES);
    await assertAnsweredOnce(cluster.client, 'fault-batch', entries);
  });

  it('kill -9 of a matching instance mid-batch: the other takes its partitions; each entry once', async () => {
    const { entries } = await batchUnderWay(cluster, 'fault-matching');
    await cluster.processes.get('matching-1')?.kill();
    assert.ok(
      (await processedNow(cluster, 'fault-matching')) < ENTRIES,
      'killed before the batch completed',
    );
    const status = await completedOrExplain(cluster, 'fault-matching', 240_000);
    assert.equal(status.progress.processed, ENTRIES);
    await assertAnsweredOnce(cluster.client, 'fault-matching', entries);
    cluster.start('matching-1');
  });

  it('a Kafka broker restart mid-batch: the batch completes, each entry once', async () => {
    const { entries } = await batchUnderWay(cluster, 'fault-broker');
    await run('bash', [kafkaScript, 'stop'], { env: process.env });
    assert.ok(
      (await processedNow(cluster, 'fault-broker')) < ENTRIES,
      'stopped before the batch completed',
    );
    await run('bash', [kafkaScript, 'start'], { env: process.env });
    const status = await completedOrExplain(cluster, 'fault-broker', 300_000);
    assert.equal(status.progress.processed, ENTRIES);
    await assertAnsweredOnce(cluster.client, 'fault-broker', entries);
  });
});

describe('distributed batches under faults, entries decided where the batch service fans them out', () => {
  let cluster: BatchCluster;
  before(async () => {
    cluster = await startBatchCluster({ matchingInstances: 1, accounts: 50 });
  });
  after(async () => cluster?.stop());

  it('kill -9 of the batch service mid fan-out: restarted, the batch completes, each entry once, and matching decided none', async () => {
    const { entries } = await batchUnderWay(cluster, 'fault-fan-out');
    await cluster.processes.get('batch')?.kill();
    assert.ok(
      (await processedNow(cluster, 'fault-fan-out')) < ENTRIES,
      'killed before the batch completed',
    );
    cluster.start('batch');
    const status = await completedOrExplain(cluster, 'fault-fan-out', 240_000);
    assert.equal(status.progress.processed, ENTRIES);
    assert.equal(status.progress.successful, ENTRIES);
    await assertAnsweredOnce(cluster.client, 'fault-fan-out', entries);
    const decidedByMatching = await cluster.matchingDb.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM matching_batch.messages WHERE type = 'VerificationCompleted'`,
    );
    assert.equal(decidedByMatching.rows[0]?.count, '0');
  });
});
