import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation } from './database-errors.js';
import { createPgliteThreadClient } from './pglite-thread-client.js';
import { pipelined } from './pipelined.js';
import type { SqlClient } from './types.js';

describe('pipelined statements on one transaction (PGlite on its own thread)', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteThreadClient({});
    await sql.query('CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL)');
  });
  after(() => sql.close());

  it('given statements sent without waiting, then they all commit, in the order sent', async () => {
    await sql.transaction((tx) =>
      pipelined([
        tx.query('INSERT INTO items VALUES (1, $1)', ['one']),
        tx.query('UPDATE items SET label = $1 WHERE id = 1', ['one, updated']),
        tx.query('INSERT INTO items VALUES (2, $1)', ['two']),
      ]),
    );
    const { rows } = await sql.query('SELECT id, label FROM items ORDER BY id');
    assert.deepEqual(rows, [
      { id: 1, label: 'one, updated' },
      { id: 2, label: 'two' },
    ]);
  });

  it('given one that fails, then it fails with that statement\'s error (not a later one\'s "aborted") and nothing is kept', async () => {
    await sql.query('DELETE FROM items');
    await sql.query("INSERT INTO items VALUES (1, 'held')");
    const failing = sql.transaction((tx) =>
      pipelined([
        tx.query('INSERT INTO items VALUES (2, $1)', ['new']),
        tx.query('INSERT INTO items VALUES (1, $1)', ['again']),
        tx.query('INSERT INTO items VALUES (3, $1)', ['after']),
      ]),
    );
    await assert.rejects(failing, (error: unknown) => isUniqueViolation(error, 'items_pkey'));
    const { rows } = await sql.query('SELECT id FROM items ORDER BY id');
    assert.deepEqual(rows, [{ id: 1 }]);
  });
});
