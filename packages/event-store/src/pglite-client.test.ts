import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation } from './database-errors.js';
import { createPgliteClient, type PgliteClientOptions } from './pglite-client.js';
import { createPgliteThreadClient } from './pglite-thread-client.js';
import { deferred } from './spec/deferred.js';
import { settlePgliteNotifications } from './spec/settle-notifications.js';
import { waitUntil } from './spec/wait-until.js';
import type { SqlClient, SqlExecutor } from './types.js';

const clients: { name: string; create: (options: PgliteClientOptions) => Promise<SqlClient> }[] = [
  { name: 'PGlite client', create: createPgliteClient },
  { name: 'PGlite client on its own thread', create: createPgliteThreadClient },
];

for (const { name, create } of clients) {
  describe(name, () => {
    let sql: SqlClient;
    before(async () => {
      sql = await create({});
      await sql.query('CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL)');
    });
    after(() => sql.close());

    it('makes a statement issued during a transaction wait until the transaction has ended', async () => {
      await sql.query('DELETE FROM items');
      const inserted = deferred();
      const finish = deferred();
      const transaction = sql.transaction(async (tx) => {
        await tx.query('INSERT INTO items VALUES (1, $1)', ['uncommitted']);
        inserted.resolve();
        await finish.promise;
        throw new Error('roll back');
      });
      await inserted.promise;
      // Run inside the open transaction, this would see the uncommitted row on PGlite's single backend.
      const countDuringTransaction = sql.query<{ count: number }>(
        'SELECT count(*)::integer AS count FROM items',
      );
      finish.resolve();

      await assert.rejects(transaction, /roll back/);
      assert.equal((await countDuringTransaction).rows[0]?.count, 0);
    });

    it('commits a transaction that succeeds and returns its result', async () => {
      await sql.query('DELETE FROM items');
      const result = await sql.transaction(async (tx) => {
        await tx.query('INSERT INTO items VALUES (1, $1), (2, $2)', ['one', 'two']);
        return 'done';
      });
      assert.equal(result, 'done');
      const { rows, rowCount } = await sql.query<{ label: string }>(
        'SELECT label FROM items ORDER BY id',
      );
      assert.deepEqual(rows, [{ label: 'one' }, { label: 'two' }]);
      assert.equal(rowCount, 2);
    });

    it('counts the rows a write touched', async () => {
      await sql.query('DELETE FROM items');
      await sql.query("INSERT INTO items VALUES (1, 'a'), (2, 'b'), (3, 'c')");
      assert.equal((await sql.query("UPDATE items SET label = 'z' WHERE id < 3")).rowCount, 2);
      assert.equal((await sql.query('DELETE FROM items WHERE id = 99')).rowCount, 0);
    });

    it('refuses a transaction executor once its transaction has ended', async () => {
      let leaked: SqlExecutor | undefined;
      await sql.transaction(async (tx) => {
        leaked = tx;
      });
      await assert.rejects(leaked!.query('SELECT 1'), /already finished/);
      await assert.rejects(sql.notify('channel', leaked), /already finished/);
    });

    it('delivers a notification sent in a transaction after commit, and drops it on rollback', async () => {
      let calls = 0;
      const stop = await sql.listen('items_changed', () => {
        calls += 1;
      });
      await sql.transaction(async (tx) => {
        await sql.notify('items_changed', tx);
        await settlePgliteNotifications();
        assert.equal(calls, 0, 'delivered before commit');
      });
      await waitUntil(() => calls === 1, 'the notification after commit');

      await assert.rejects(
        sql.transaction(async (tx) => {
          await sql.notify('items_changed', tx);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await settlePgliteNotifications();
      assert.equal(calls, 1);

      await sql.notify('items_changed');
      await waitUntil(() => calls === 2, 'a notification outside any transaction');
      await stop();
      await sql.notify('items_changed');
      await settlePgliteNotifications();
      assert.equal(calls, 2);
    });

    it('finishes queued work before closing, and refuses work afterwards', async () => {
      const own = await create({});
      const queued = own.query<{ answer: number }>('SELECT 42 AS answer');
      await own.close();
      assert.equal((await queued).rows[0]?.answer, 42);
      await assert.rejects(own.query('SELECT 1'), /closed/);
    });
  });
}

describe('PGlite client on its own thread, what the thread boundary must keep', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteThreadClient({});
    await sql.query('CREATE TABLE keyed (id integer CONSTRAINT keyed_pkey PRIMARY KEY)');
  });
  after(() => sql.close());

  it('raises database errors with their SQLSTATE code and constraint', async () => {
    await sql.query('INSERT INTO keyed VALUES (1)');
    const error = await sql.query('INSERT INTO keyed VALUES (1)').then(
      () => undefined,
      (raised: unknown) => raised,
    );
    assert.ok(error instanceof Error);
    assert.ok(isUniqueViolation(error, 'keyed_pkey'), `not a unique violation: ${String(error)}`);
  });

  it('rolls back a transaction whose statement failed, and keeps serving', async () => {
    await assert.rejects(
      sql.transaction(async (tx) => {
        await tx.query('INSERT INTO keyed VALUES (2)');
        await tx.query('INSERT INTO keyed VALUES (1)');
      }),
      (error: unknown) => isUniqueViolation(error, 'keyed_pkey'),
    );
    const { rows } = await sql.query<{ id: number }>('SELECT id FROM keyed ORDER BY id');
    assert.deepEqual(rows, [{ id: 1 }]);
  });

  it('keeps the values of parameters and results: bytes, json, bigints and times', async () => {
    const bytes = new Uint8Array([0, 1, 254, 255]);
    const { rows } = await sql.query<{ b: Uint8Array; j: { a: number[] }; n: string; t: Date }>(
      'SELECT $1::bytea AS b, $2::jsonb AS j, $3::numeric::text AS n, $4::timestamptz AS t',
      [
        bytes,
        JSON.stringify({ a: [1, 2] }),
        9007199254740993n.toString(),
        new Date('2026-11-26T12:00:00Z'),
      ],
    );
    assert.deepEqual([...rows[0]!.b], [...bytes]);
    assert.deepEqual(rows[0]!.j, { a: [1, 2] });
    assert.equal(rows[0]!.n, '9007199254740993');
    assert.equal(rows[0]!.t.toISOString(), '2026-11-26T12:00:00.000Z');
  });

  it('keeps long strings as they were (an import chunk’s JSON, sent as UTF-8): accents, emoji', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `Zoë Łukasz 😀 ${i}`);
    const json = JSON.stringify(names.map((name) => ({ name })));
    const { rows } = await sql.query<{ names: string[]; text: string }>(
      `SELECT array_agg(item->>'name' ORDER BY n) AS names, $2::text AS text
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(item, n)`,
      [json, json],
    );
    assert.deepEqual(rows[0]!.names, names);
    assert.equal(rows[0]!.text, json);
  });

  it("refuses to start, with PGlite's error, when its data folder cannot be made", async () => {
    // A folder under a regular file cannot exist.
    await assert.rejects(createPgliteThreadClient({ dataDir: '/dev/null/pglite' }), Error);
  });

  it('runs statements off the calling thread: a timer due during a long statement fires before its answer', async () => {
    let fired = false;
    const timer = setTimeout(() => (fired = true), 20);
    const started = performance.now();
    await sql.query('SELECT count(*) FROM generate_series(1, 1000000)');
    const tookMs = performance.now() - started;
    clearTimeout(timer);
    // On the calling thread (pglite-client.ts) the statement holds the loop from start to end, so the
    // timer could only fire after the answer.
    assert.ok(tookMs > 40, `the statement took ${tookMs.toFixed(0)} ms: too short to tell`);
    assert.ok(fired, 'the timer waited for the statement');
  });
});

describe('PGlite client on its own thread, when the thread ends while the client is open', () => {
  const tracked = () => {
    const threads: Worker[] = [];
    const endings: Error[] = [];
    return {
      threads,
      endings,
      options: {
        restartDelayMs: 10,
        onThreadStarted: (thread: Worker) => threads.push(thread),
        onThreadEnded: (error: Error) => endings.push(error),
      },
    };
  };
  const answers = async (sql: SqlClient): Promise<boolean> =>
    sql.query('SELECT 1').then(
      () => true,
      () => false,
    );

  it('fails what the thread was running, then opens the data folder on a new thread with everything committed before', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pglite-thread-'));
    const { threads, endings, options } = tracked();
    const sql = await createPgliteThreadClient({ dataDir, ...options });
    try {
      await sql.query('CREATE TABLE kept (id integer PRIMARY KEY)');
      await sql.query('INSERT INTO kept VALUES (1)');
      const ended = deferred();
      const open = sql.transaction(async (tx) => {
        await tx.query('INSERT INTO kept VALUES (2)');
        ended.resolve();
        // Sent after the thread ended: it fails, and so does the transaction.
        await sql.query('SELECT 1').catch(() => undefined);
        await tx.query('INSERT INTO kept VALUES (3)');
      });
      await ended.promise;
      await threads[0]!.terminate();
      await assert.rejects(open);
      assert.equal(endings.length, 1);

      await waitUntil(() => answers(sql), 'a new thread');
      assert.equal(threads.length, 2);
      const { rows } = await sql.query<{ id: number }>('SELECT id FROM kept ORDER BY id');
      assert.deepEqual(rows, [{ id: 1 }], 'the transaction that never committed left nothing');
      await sql.transaction((tx) => tx.query('INSERT INTO kept VALUES (4)'));
      assert.equal((await sql.query('SELECT id FROM kept')).rowCount, 2);
    } finally {
      await sql.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('in memory, where there is nothing to reopen, keeps failing every statement', async () => {
    const { threads, endings, options } = tracked();
    const sql = await createPgliteThreadClient(options);
    await threads[0]!.terminate();
    await assert.rejects(sql.query('SELECT 1'), /PGlite thread ended/);
    await assert.rejects(sql.query('SELECT 1'), /PGlite thread ended/);
    assert.equal(endings.length, 1);
    assert.equal(threads.length, 1);
    await sql.close();
  });
});
