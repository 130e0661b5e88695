import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPgliteThreadClient, type SqlClient } from '@vop/event-store';
import { PriorityGate } from '@vop/messaging';
import { createLogger, createMetricsRegistry, type ServiceMetrics } from '@vop/observability';
import { eventually } from '@vop/testing';
import { storeUpkeep } from './store-upkeep.js';

const logger = createLogger({ service: 'store-upkeep-test', level: 'silent' });

/** The statistics reach pg_stat_user_tables at a transaction's end once a second has passed. */
async function flushedStatistics(sql: SqlClient): Promise<void> {
  await sql.query('SELECT pg_stat_force_next_flush()');
  await sql.query('SELECT 1');
}

async function deadRowsOf(sql: SqlClient, table: string): Promise<number> {
  await flushedStatistics(sql);
  const { rows } = await sql.query<{ dead: string }>(
    `SELECT n_dead_tup::text AS dead FROM pg_stat_user_tables WHERE relid = $1::regclass`,
    [table],
  );
  return Number(rows[0]?.dead);
}

const vacuums = async (metrics: ServiceMetrics): Promise<number> => {
  const metric = await metrics.registry.getSingleMetric('store_upkeep_total')?.get();
  return metric?.values.find((value) => value.labels.action === 'vacuum')?.value ?? 0;
};

const newMetrics = (): ServiceMetrics =>
  createMetricsRegistry({ service: 'vop-embedded', collectDefaultMetrics: false });

/** An import under way on the gate (`gate.background`) until `end` is called. */
function heldImport(gate: PriorityGate): { end: () => void; done: Promise<void> } {
  let end!: () => void;
  const done = gate.background(() => new Promise<void>((resolve) => (end = resolve)));
  return { end, done };
}

describe('the embedded store upkeep (PGlite runs no autovacuum)', () => {
  let dir: string;
  let sql: SqlClient;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vop-store-upkeep-'));
    sql = await createPgliteThreadClient({ dataDir: join(dir, 'pglite') });
    await sql.query('CREATE SCHEMA app');
    await sql.query('CREATE TABLE app.rows (id int PRIMARY KEY, doc text NOT NULL)');
    // About 2 MiB: above the size owed a vacuum after a restart.
    await sql.query(
      `INSERT INTO app.rows SELECT g, repeat('d', 200) FROM generate_series(1, 8000) g`,
    );
    await flushedStatistics(sql);
    await sql.query('VACUUM (ANALYZE)');
  });
  after(async () => {
    await sql.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Every row of app.rows updated (a dead row each), the counts flushed for the upkeep to read. */
  async function rewriteRows(mark: string): Promise<void> {
    await sql.query(`UPDATE app.rows SET doc = doc || '${mark}'`);
    await flushedStatistics(sql);
  }

  it('given a table rewritten and no single check, when the job looks, then it is vacuumed and counted, and the age is exported', async () => {
    const metrics = newMetrics();
    const upkeep = storeUpkeep({ sql, gate: new PriorityGate(), metrics, logger });
    await sql.query(`UPDATE app.rows SET doc = doc || 'x'`);
    assert.equal(await deadRowsOf(sql, 'app.rows'), 8000);

    const ran = await upkeep.runOnce();
    assert.deepEqual(
      ran.map((step) => [step.table, step.reason]),
      [['app.rows', 'dead rows']],
    );
    assert.equal(await deadRowsOf(sql, 'app.rows'), 0);
    assert.equal(await vacuums(metrics), 1);
    const text = await metrics.registry.metrics();
    assert.match(text, /^store_transaction_id_age\{service="vop-embedded"\} [1-9]\d*$/m);
    assert.match(
      text,
      /^store_upkeep_duration_seconds_count\{service="vop-embedded",action="vacuum"\} 1$/m,
    );
    assert.deepEqual(await upkeep.runOnce(), [], 'nothing left to do');
  });

  it('given single checks coming, when a table is due, then it waits for a quiet moment, at most maxDeferMs', async () => {
    let now = 1_000_000;
    const gate = new PriorityGate();
    const metrics = newMetrics();
    const upkeep = storeUpkeep({ sql, gate, metrics, logger, maxDeferMs: 60_000, now: () => now });
    await rewriteRows('y');

    await gate.high(async () => undefined);
    assert.deepEqual(await upkeep.runOnce(), [], 'deferred while checks come');
    now += 59_000;
    await gate.high(async () => undefined);
    assert.deepEqual(await upkeep.runOnce(), [], 'still deferred');
    assert.equal(await deadRowsOf(sql, 'app.rows'), 8000);

    now += 1_000;
    await gate.high(async () => undefined);
    assert.equal(
      (await upkeep.runOnce()).length,
      1,
      'run among the checks once due for maxDeferMs',
    );
    assert.equal(await deadRowsOf(sql, 'app.rows'), 0);
  });

  it('given an import under way, when a table is due, then it waits for the import to end, at most maxDeferMs', async () => {
    let now = 2_000_000;
    const gate = new PriorityGate();
    const metrics = newMetrics();
    const upkeep = storeUpkeep({ sql, gate, metrics, logger, maxDeferMs: 60_000, now: () => now });
    await rewriteRows('i');

    const importing = heldImport(gate);
    assert.deepEqual(await upkeep.runOnce(), [], 'deferred while the import runs');
    now += 30_000;
    importing.end();
    await importing.done;
    assert.equal((await upkeep.runOnce()).length, 1, 'run once the import ended');
    assert.equal(await deadRowsOf(sql, 'app.rows'), 0);

    await rewriteRows('j');
    const longImport = heldImport(gate);
    assert.deepEqual(await upkeep.runOnce(), [], 'deferred while the next import runs');
    now += 60_000;
    assert.equal(
      (await upkeep.runOnce()).length,
      1,
      'run beside an import that lasts past maxDeferMs',
    );
    longImport.end();
    await longImport.done;
  });

  it('given rows changed by an eighth of a table, then no analyse (autovacuum would: each held PGlite up to seconds); once as many as its rows, then one', async () => {
    await sql.query('CREATE TABLE app.analysed (id int PRIMARY KEY, doc text NOT NULL)');
    await sql.query(`INSERT INTO app.analysed SELECT g, 'a' FROM generate_series(1, 8000) g`);
    await flushedStatistics(sql);
    await sql.query('VACUUM (ANALYZE) app.analysed');
    const metrics = newMetrics();
    const upkeep = storeUpkeep({ sql, gate: new PriorityGate(), metrics, logger });

    // A new job owes app.rows its first vacuum: only app.analysed is looked at here.
    const analysed = async () =>
      (await upkeep.runOnce())
        .filter((step) => step.table === 'app.analysed')
        .map((step) => [step.vacuum, step.analyze]);
    await sql.query(`UPDATE app.analysed SET doc = 'b' WHERE id <= 1000`);
    await flushedStatistics(sql);
    assert.deepEqual(await analysed(), []);

    await sql.query(`UPDATE app.analysed SET doc = 'c' WHERE id <= 7100`);
    await flushedStatistics(sql);
    assert.deepEqual(await analysed(), [[true, true]]);
  });

  it('given the store reopened (the counts of the run before are gone), then each table of 1 MiB or more is vacuumed once', async () => {
    await rewriteRows('z');
    await sql.close();
    sql = await createPgliteThreadClient({ dataDir: join(dir, 'pglite') });
    assert.equal(
      await deadRowsOf(sql, 'app.rows'),
      0,
      'the counts are gone, the dead rows are not',
    );

    const metrics = newMetrics();
    const upkeep = storeUpkeep({ sql, gate: new PriorityGate(), metrics, logger });
    const first = await upkeep.runOnce();
    assert.deepEqual(
      first.map((step) => [step.table, step.reason]),
      [['app.rows', 'counts lost at start']],
    );
    assert.deepEqual(await upkeep.runOnce(), [], 'once');
  });

  it('given the job started, then it looks on its own at each interval until stopped', async () => {
    const metrics = newMetrics();
    const upkeep = storeUpkeep({ sql, gate: new PriorityGate(), metrics, logger, intervalMs: 50 });
    await rewriteRows('w');
    upkeep.start();
    try {
      await eventually(async () => ((await vacuums(metrics)) === 1 ? true : undefined), {
        what: "a vacuum by the job's own timer",
      });
    } finally {
      await upkeep.stop();
    }
  });
});
