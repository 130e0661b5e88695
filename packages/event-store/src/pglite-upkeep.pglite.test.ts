import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPgliteThreadClient } from './pglite-thread-client.js';
import {
  AUTOVACUUM_DEFAULTS,
  LEAST_PAGES_OWED,
  readTableActivity,
  upkeepDue,
  upkeepStatement,
} from './pglite-upkeep.js';
import type { SqlClient } from './types.js';

/** The statistics reach pg_stat_user_tables at the end of a transaction once a second has passed. */
async function flushedStatistics(sql: SqlClient): Promise<void> {
  await sql.query('SELECT pg_stat_force_next_flush()');
  await sql.query('SELECT 1');
}

const sizeOf = async (sql: SqlClient, table: string): Promise<number> => {
  const { rows } = await sql.query<{ size: string }>('SELECT pg_relation_size($1)::text AS size', [
    table,
  ]);
  return Number(rows[0]?.size);
};

/** Every row rewritten `times` times, one transaction each (a read model's updates, an import's). */
async function rewrite(sql: SqlClient, table: string, times: number): Promise<void> {
  for (let round = 0; round < times; round += 1)
    await sql.query(`UPDATE ${table} SET doc = doc || 'x', n = n + 1`);
}

describe('store upkeep on PGlite (on its own thread, as the embedded service runs it)', () => {
  let sql: SqlClient;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vop-upkeep-'));
    sql = await createPgliteThreadClient({ dataDir: dir });
    await sql.query('CREATE SCHEMA app');
    for (const name of ['churned', 'quiet']) {
      await sql.query(
        `CREATE TABLE app.${name} (id int PRIMARY KEY, n int NOT NULL, doc text NOT NULL)`,
      );
      await sql.query(`CREATE INDEX ON app.${name} (n)`);
    }
    for (const name of ['churned', 'quiet'])
      await sql.query(
        `INSERT INTO app.${name} SELECT g, 0, repeat('d', 200) FROM generate_series(1, 5000) g`,
      );
    // The inserts' counts reach the statistics first, or they would arrive after the vacuum reset them.
    await flushedStatistics(sql);
    await sql.query('VACUUM (ANALYZE)');
  });
  after(async () => {
    await sql.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('given a table whose rows were rewritten, when the activity is read, then it is due for a vacuum and the quiet one is not', async () => {
    await rewrite(sql, 'app.churned', 2);
    await flushedStatistics(sql);
    const tables = await readTableActivity(sql);
    const churned = tables.find((activity) => activity.table === 'app.churned');
    assert.equal(churned?.deadRows, 10_000);
    assert.equal(churned?.estimatedRows, 5_000);
    assert.equal(churned?.catalog, false);
    assert.ok(
      tables.some((activity) => activity.table === 'pg_catalog.pg_class' && activity.catalog),
    );
    const due = upkeepDue(tables);
    assert.deepEqual(
      due.map((step) => [step.table, step.vacuum, step.analyze]),
      [['app.churned', true, true]],
    );
  });

  it('given each step run as its statement, then the dead rows are gone and later rewrites reuse the space instead of growing the table', async () => {
    for (const step of upkeepDue(await readTableActivity(sql)))
      await sql.query(upkeepStatement(step));
    await flushedStatistics(sql);
    const after = (await readTableActivity(sql)).find((a) => a.table === 'app.churned');
    assert.equal(after?.deadRows, 0);
    assert.equal(upkeepDue(await readTableActivity(sql)).length, 0);

    // Rewritten with upkeep after each round, against the quiet table rewritten as often without.
    const churnedBefore = await sizeOf(sql, 'app.churned');
    const quietBefore = await sizeOf(sql, 'app.quiet');
    for (let round = 0; round < 4; round += 1) {
      await rewrite(sql, 'app.churned', 1);
      await rewrite(sql, 'app.quiet', 1);
      await flushedStatistics(sql);
      for (const step of upkeepDue(await readTableActivity(sql)).filter(
        (s) => s.table === 'app.churned',
      ))
        await sql.query(upkeepStatement(step));
    }
    const churnedGrowth = (await sizeOf(sql, 'app.churned')) / churnedBefore;
    const quietGrowth = (await sizeOf(sql, 'app.quiet')) / quietBefore;
    assert.ok(quietGrowth >= 4, `without upkeep the table grew ${quietGrowth.toFixed(2)}×`);
    assert.ok(churnedGrowth <= 2.5, `with upkeep the table grew ${churnedGrowth.toFixed(2)}×`);
  });

  it('given a table of about 2 MiB never vacuumed nor analysed (pg_class says 0 pages), then its size is read from its file and it is owed a vacuum', async () => {
    await sql.query('CREATE TABLE app.fresh (id int PRIMARY KEY, doc text NOT NULL)');
    await sql.query(
      `INSERT INTO app.fresh SELECT g, repeat('f', 200) FROM generate_series(1, 8000) g`,
    );
    const fresh = (await readTableActivity(sql)).find((activity) => activity.table === 'app.fresh');
    assert.equal(fresh?.estimatedRows, -1);
    assert.ok((fresh?.pages ?? 0) >= LEAST_PAGES_OWED, `pages ${fresh?.pages}`);
    const owed = upkeepDue([fresh!], AUTOVACUUM_DEFAULTS, () => true);
    assert.deepEqual(owed, [
      { table: 'app.fresh', vacuum: true, analyze: true, reason: 'counts lost at start' },
    ]);
  });

  it('given every table older than the freeze age, when vacuumed, then the database’s oldest unfrozen transaction id moves up', async () => {
    for (let n = 0; n < 20; n += 1)
      await sql.query('INSERT INTO app.quiet VALUES ($1, 0, $2)', [10_000 + n, 'x']);
    const ageOf = async () => {
      const { rows } = await sql.query<{ age: number }>(
        'SELECT age(datfrozenxid) AS age FROM pg_database WHERE datname = current_database()',
      );
      return Number(rows[0]?.age);
    };
    const before = await ageOf();
    assert.ok(before > 20, `age ${before}`);
    const due = upkeepDue(await readTableActivity(sql), {
      ...AUTOVACUUM_DEFAULTS,
      freezeMaxAge: 10,
    });
    assert.ok(due.every((step) => step.reason === 'transaction id age' && step.vacuum));
    assert.ok(due.some((step) => step.table === 'pg_catalog.pg_database'));
    for (const step of due) await sql.query(upkeepStatement(step));
    const afterVacuum = await ageOf();
    assert.ok(afterVacuum < before, `age ${before} → ${afterVacuum}`);
  });
});
