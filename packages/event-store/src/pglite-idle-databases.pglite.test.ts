import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { freezeIdleDatabases } from './pglite-idle-databases.js';
import { createPgliteThreadClient } from './pglite-thread-client.js';

/** PGlite itself or the thread client: each answers rows. */
interface Queryable {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

async function databases(sql: Queryable) {
  const { rows } = await sql.query<{ name: string; age: number; open: boolean }>(
    `SELECT datname AS name, age(datfrozenxid) AS age, datallowconn AS open FROM pg_database ORDER BY datname`,
  );
  return Object.fromEntries(
    rows.map((row) => [row.name, { age: Number(row.age), open: row.open }]),
  );
}

/** Transactions that assign ids, so every database of the cluster ages. */
async function age(sql: Queryable, transactions: number): Promise<void> {
  await sql.query('CREATE TABLE IF NOT EXISTS ticks (n int)');
  for (let n = 0; n < transactions; n += 1) await sql.query('INSERT INTO ticks VALUES ($1)', [n]);
}

describe('the data folder’s other databases frozen at open (PGlite reaches one database at a time)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vop-idle-databases-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('given templates older than the limit, when frozen, then their age starts again and template0 stays closed', async () => {
    const db = await PGlite.create({ dataDir: dir });
    await age(db, 40);
    const before = await databases(db);
    assert.ok(before.template0!.age >= 40 && before.template1!.age >= 40, JSON.stringify(before));

    assert.deepEqual(await freezeIdleDatabases(db, dir, 30), ['template0', 'template1']);
    assert.equal(db.closed, true, 'the caller opens its database again');

    const again = await PGlite.create({ dataDir: dir });
    try {
      const after = await databases(again);
      assert.ok(after.template0!.age <= 2 && after.template1!.age <= 2, JSON.stringify(after));
      assert.equal(after.template0!.open, false);
      assert.equal(after.template1!.open, true);
      assert.ok(after.postgres!.age >= 40, 'the database in use is the upkeep’s to freeze');
      assert.equal(
        (await again.query<{ n: number }>('SELECT count(*)::int AS n FROM ticks')).rows[0]?.n,
        40,
      );
      assert.deepEqual(await freezeIdleDatabases(again, dir, 30), [], 'none older: nothing done');
      assert.equal(again.closed, false);
    } finally {
      await again.close();
    }
  });

  it('given the embedded service’s thread client, when it opens a folder whose templates are old, then it freezes them and says so', async () => {
    const first = await createPgliteThreadClient({ dataDir: dir });
    await age(first, 25);
    await first.close();
    const frozen: string[][] = [];
    const sql = await createPgliteThreadClient({
      dataDir: dir,
      freezeIdleDatabasesOlderThan: 20,
      onIdleDatabasesFrozen: (names) => frozen.push(names),
    });
    try {
      assert.deepEqual(frozen, [['template0', 'template1']]);
      const after = await databases(sql);
      assert.ok(after.template1!.age <= 2, JSON.stringify(after));
      assert.equal(
        (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM ticks')).rows[0]?.n,
        65,
      );
    } finally {
      await sql.close();
    }
  });

  it('given another database that cannot be opened, when the thread client opens the folder, then it serves all the same and says the freeze failed', async () => {
    const broken = await mkdtemp(join(tmpdir(), 'vop-idle-databases-broken-'));
    try {
      const db = await PGlite.create({ dataDir: broken });
      await db.exec('CREATE DATABASE lost');
      const { rows } = await db.query<{ oid: number }>(
        `SELECT oid FROM pg_database WHERE datname = 'lost'`,
      );
      await age(db, 25);
      await db.close();
      // Its files gone, as a disk fault would leave it.
      await rm(join(broken, 'base', String(rows[0]!.oid)), { recursive: true });
      const failures: Error[] = [];
      const sql = await createPgliteThreadClient({
        dataDir: broken,
        freezeIdleDatabasesOlderThan: 20,
        onIdleDatabasesFreezeFailed: (error) => failures.push(error),
      });
      try {
        assert.equal(failures.length, 1);
        assert.equal(
          (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM ticks')).rows[0]?.n,
          25,
        );
        const after = await databases(sql);
        assert.equal(after.template0!.open, false, 'template0 closed again after the failure');
      } finally {
        await sql.close();
      }
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
