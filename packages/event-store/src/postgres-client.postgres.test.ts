import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createPostgresClient } from './postgres-client.js';
import { testDatabaseUrl } from './spec/database-url.js';
import { settlePostgresNotifications } from './spec/settle-notifications.js';
import { waitUntil } from './spec/wait-until.js';
import type { SqlClient, SqlExecutor } from './types.js';

const url = testDatabaseUrl();

describe('Postgres client', () => {
  let sql: SqlClient;
  const table = `pg_client_items_${randomBytes(5).toString('hex')}`;

  before(async () => {
    sql = createPostgresClient({
      connectionString: url,
      max: 4,
      applicationName: 'postgres-client-test',
    });
    await sql.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, label text NOT NULL)`);
  });
  after(async () => {
    await sql.query(`DROP TABLE IF EXISTS ${table}`);
    await sql.close();
  });

  it('commits a transaction that succeeds and rolls back one that throws, rethrowing its error', async () => {
    await sql.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${table} VALUES (1, $1)`, ['kept']);
    });
    const failure = new Error('business rule broken');
    await assert.rejects(
      sql.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${table} VALUES (2, $1)`, ['discarded']);
        throw failure;
      }),
      (error: unknown) => error === failure,
    );
    const { rows, rowCount } = await sql.query<{ label: string }>(
      `SELECT label FROM ${table} ORDER BY id`,
    );
    assert.deepEqual(rows, [{ label: 'kept' }]);
    assert.equal(rowCount, 1);
  });

  it('returns the connection to the pool after a failed statement inside a transaction', async () => {
    for (let attempt = 0; attempt < 6; attempt += 1) {
      await assert.rejects(
        sql.transaction((tx) => tx.query('SELECT * FROM no_such_table')),
        /no_such_table/,
      );
    }
    assert.equal((await sql.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
  });

  it('refuses a transaction executor once its transaction has ended', async () => {
    let leaked: SqlExecutor | undefined;
    await sql.transaction(async (tx) => {
      leaked = tx;
    });
    await assert.rejects(leaked!.query('SELECT 1'), /already finished/);
  });

  it('notifies every listener of a channel, on this and other clients, and stops per listener', async () => {
    const other = createPostgresClient({ connectionString: url, max: 1 });
    try {
      const channel = `chan_${randomBytes(5).toString('hex')}`;
      let first = 0;
      let second = 0;
      let remote = 0;
      const stopFirst = await sql.listen(channel, () => {
        first += 1;
      });
      const stopSecond = await sql.listen(channel, () => {
        second += 1;
      });
      const stopRemote = await other.listen(channel, () => {
        remote += 1;
      });

      await sql.notify(channel);
      await waitUntil(() => first === 1 && second === 1 && remote === 1, 'all three listeners');

      await stopFirst();
      await other.notify(channel);
      await waitUntil(() => second === 2 && remote === 2, 'the remaining listeners');
      await settlePostgresNotifications(sql);
      assert.equal(first, 1);
      await stopSecond();
      await stopRemote();
    } finally {
      await other.close();
    }
  });

  it('delivers a notification sent in a transaction only when it commits', async () => {
    const channel = `chan_${randomBytes(5).toString('hex')}`;
    let calls = 0;
    const stop = await sql.listen(channel, () => {
      calls += 1;
    });
    await sql.transaction(async (tx) => {
      await sql.notify(channel, tx);
      await settlePostgresNotifications(sql);
      assert.equal(calls, 0, 'delivered before commit');
    });
    await waitUntil(() => calls === 1, 'the notification after commit');

    await assert.rejects(
      sql.transaction(async (tx) => {
        await sql.notify(channel, tx);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await settlePostgresNotifications(sql);
    assert.equal(calls, 1);
    await stop();
  });

  it('outlives the server ending a connection held by a transaction, and answers again', async () => {
    const ended = sql.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // A second connection ends this one while the transaction holds it between statements.
      await sql.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await tx.query('SELECT 1');
    });
    await assert.rejects(ended);
    assert.equal((await sql.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
  });

  it('listens again each time the server ends the LISTEN connection', async () => {
    const applicationName = `listen-loss-${randomBytes(4).toString('hex')}`;
    const errors: Error[] = [];
    const listening = createPostgresClient({
      connectionString: url,
      max: 1,
      applicationName,
      onError: (error) => errors.push(error),
    });
    const listenPid = async (): Promise<number | undefined> =>
      (
        await sql.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
          [`${applicationName}-listen`],
        )
      ).rows[0]?.pid;
    try {
      const channel = `chan_${randomBytes(5).toString('hex')}`;
      let calls = 0;
      await listening.listen(channel, () => {
        calls += 1;
      });
      for (let loss = 1; loss <= 2; loss++) {
        const before = await listenPid();
        assert.ok(before !== undefined, 'the LISTEN connection is open');
        await sql.query('SELECT pg_terminate_backend($1)', [before]);
        await waitUntil(async () => {
          const after = await listenPid();
          return after !== undefined && after !== before;
        }, 'a new LISTEN connection');
        // The reconnect wakes every listener once; a NOTIFY after it is heard too.
        await waitUntil(() => calls >= 2 * loss - 1, 'the wake-up after reconnecting');
        const woken = calls;
        await sql.notify(channel);
        await waitUntil(() => calls > woken, 'a notification after reconnecting');
      }
      assert.equal(errors.length, 2, 'one report per loss');
    } finally {
      await listening.close();
    }
  });

  it('keeps int8 exact by handing it over as text', async () => {
    const { rows } = await sql.query<{ big: string }>('SELECT 9007199254740993::int8 AS big');
    assert.equal(rows[0]?.big, '9007199254740993');
  });
});
