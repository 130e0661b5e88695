import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPgliteThreadClient, type SqlClient, walSinceCheckpoint } from '@vop/event-store';
import { PriorityGate } from '@vop/messaging';
import { createLogger, createMetricsRegistry, type ServiceMetrics } from '@vop/observability';
import { eventually } from '@vop/testing';
import { storeCheckpoints } from './store-checkpoints.js';

const logger = createLogger({ service: 'store-checkpoints-test', level: 'silent' });
const MIB = 1024 * 1024;
/** Small thresholds, so a few MiB of rows pass them. */
const policy = { quietBytes: 4 * MIB, anyTimeBytes: 16 * MIB };

const newMetrics = (): ServiceMetrics =>
  createMetricsRegistry({ service: 'vop-embedded', collectDefaultMetrics: false });

const checkpointsCounted = async (metrics: ServiceMetrics): Promise<number> => {
  const metric = await metrics.registry.getSingleMetric('store_upkeep_total')?.get();
  return metric?.values.find((value) => value.labels.action === 'checkpoint')?.value ?? 0;
};

describe('the embedded store checkpoints (a standalone PGlite takes one only when it closes)', () => {
  let dir: string;
  let sql: SqlClient;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vop-store-checkpoints-'));
    sql = await createPgliteThreadClient({ dataDir: join(dir, 'pglite') });
    await sql.query('CREATE SCHEMA app');
    await sql.query('CREATE TABLE app.rows (id bigserial PRIMARY KEY, doc text NOT NULL)');
  });
  after(async () => {
    await sql.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** About `mib` MiB of rows, and so at least as much WAL. */
  async function writeRows(mib: number): Promise<void> {
    await sql.query(
      `INSERT INTO app.rows (doc) SELECT repeat(md5(g::text), 32) FROM generate_series(1, $1::int) g`,
      [mib * 1024],
    );
  }

  /** The WAL of about `mib` MiB of rows written from a checkpoint just taken. */
  async function walOf(mib: number): Promise<number> {
    await sql.query('CHECKPOINT');
    await writeRows(mib);
    return walSinceCheckpoint(sql);
  }

  it('given WAL below the quiet threshold, when the job looks, then no checkpoint', async () => {
    const metrics = newMetrics();
    const job = storeCheckpoints({ sql, gate: new PriorityGate(), metrics, logger, policy });
    const wal = await walOf(1);
    assert.ok(wal < policy.quietBytes, `${wal} bytes`);

    assert.equal(await job.runOnce(), false);
    assert.ok((await walSinceCheckpoint(sql)) >= wal, 'nothing recycled');
    assert.equal(await checkpointsCounted(metrics), 0);
  });

  it('given WAL past the quiet threshold and no single check, when the job looks, then a checkpoint, counted and timed, and the WAL since is exported', async () => {
    const metrics = newMetrics();
    const job = storeCheckpoints({ sql, gate: new PriorityGate(), metrics, logger, policy });
    assert.ok((await walOf(6)) >= policy.quietBytes);
    const text = await metrics.registry.metrics();
    const exported = Number(
      /^store_wal_since_checkpoint_bytes\{service="vop-embedded"\} (\d+)$/m.exec(text)?.[1],
    );
    assert.ok(exported >= policy.quietBytes, `exported ${exported}`);

    assert.equal(await job.runOnce(), true);
    assert.ok((await walSinceCheckpoint(sql)) < MIB);
    assert.equal(await checkpointsCounted(metrics), 1);
    assert.match(
      await metrics.registry.metrics(),
      /^store_upkeep_duration_seconds_count\{service="vop-embedded",action="checkpoint"\} 1$/m,
    );
    assert.equal(await job.runOnce(), false, 'nothing left to do');
  });

  it('given single checks coming, then it waits for a quiet moment until the WAL passes the other threshold', async () => {
    const gate = new PriorityGate();
    const metrics = newMetrics();
    const job = storeCheckpoints({ sql, gate, metrics, logger, policy });
    assert.ok((await walOf(6)) < policy.anyTimeBytes);

    await gate.high(async () => undefined);
    assert.equal(await job.runOnce(), false, 'put off while checks come');
    await writeRows(12);
    assert.ok((await walSinceCheckpoint(sql)) >= policy.anyTimeBytes);
    await gate.high(async () => undefined);
    assert.equal(await job.runOnce(), true, 'taken among the checks');
    assert.equal(await checkpointsCounted(metrics), 1);
  });

  it('given an import under way, then it does not wait for it (its WAL is what the checkpoint bounds)', async () => {
    const gate = new PriorityGate();
    const job = storeCheckpoints({ sql, gate, metrics: newMetrics(), logger, policy });
    let end!: () => void;
    const importing = gate.background(() => new Promise<void>((resolve) => (end = resolve)));
    try {
      assert.ok(gate.backgroundActive());
      assert.ok((await walOf(6)) >= policy.quietBytes);
      assert.equal(await job.runOnce(), true);
    } finally {
      end();
      await importing;
    }
  });

  it('given the job started, then it looks on its own at each interval until stopped', async () => {
    const metrics = newMetrics();
    const job = storeCheckpoints({
      sql,
      gate: new PriorityGate(),
      metrics,
      logger,
      policy,
      intervalMs: 50,
    });
    await walOf(6);
    job.start();
    try {
      await eventually(async () => ((await checkpointsCounted(metrics)) === 1 ? true : undefined), {
        what: "a checkpoint by the job's own timer",
      });
    } finally {
      await job.stop();
    }
    assert.ok((await walSinceCheckpoint(sql)) < MIB);
  });
});
