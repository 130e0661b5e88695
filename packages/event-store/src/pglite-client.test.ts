import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPgliteClient } from './pglite-client.js';
import { deferred } from './spec/deferred.js';
import { settlePgliteNotifications } from './spec/settle-notifications.js';
import { waitUntil } from './spec/wait-until.js';
import type { SqlClient, SqlExecutor } from './types.js';

describe('PGlite client', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
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
    const own = await createPgliteClient({});
    const queued = own.query<{ answer: number }>('SELECT 42 AS answer');
    await own.close();
    assert.equal((await queued).rows[0]?.answer, 42);
    await assert.rejects(own.query('SELECT 1'), /closed/);
  });
});
