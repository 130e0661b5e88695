import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { EventStore } from './event-store.js';
import { createPostgresClient } from './postgres-client.js';
import { deferred } from './spec/deferred.js';
import { eventStoreSpec } from './spec/event-store-spec.js';
import { settlePostgresNotifications } from './spec/settle-notifications.js';
import { testDatabaseUrl } from './spec/database-url.js';
import { waitUntil } from './spec/wait-until.js';
import { START, type Checkpoint, type RecordedEvent, type SqlClient } from './types.js';

const url = testDatabaseUrl();

describe('EventStore on PostgreSQL', () => {
  let sql: SqlClient;
  const schemas: string[] = [];

  async function freshStore(
    client: SqlClient = sql,
    schema = `es_pg_${randomBytes(5).toString('hex')}`,
  ): Promise<EventStore> {
    if (!schemas.includes(schema)) schemas.push(schema);
    const store = new EventStore(client, { schema });
    await store.migrate();
    return store;
  }

  before(() => {
    // More connections than concurrent appenders in the spec, so they really run at the same time.
    sql = createPostgresClient({
      connectionString: url,
      max: 25,
      applicationName: 'event-store-test',
    });
  });

  eventStoreSpec({
    client: () => sql,
    settleNotifications: () => settlePostgresNotifications(sql),
  });

  it('never lets a reader pass an event whose transaction commits late', async () => {
    const store = await freshStore();
    await store.append('early', [{ type: 'Early', data: 0 }], { expectedVersion: 'no_stream' });
    const appendedInA = deferred();
    const commitA = deferred();

    // A begins first and appends, so it gets the smaller global position and xid, but commits last.
    const transactionA = sql.transaction(async (tx) => {
      await store.append('stream-a', [{ type: 'A', data: 1 }], {
        expectedVersion: 'no_stream',
        tx,
      });
      appendedInA.resolve();
      await commitA.promise;
    });
    await appendedInA.promise;
    await store.append('stream-b', [{ type: 'B', data: 2 }], { expectedVersion: 'no_stream' });

    const seen: RecordedEvent[] = [];
    let checkpoint: Checkpoint = START;
    const readPage = async () => {
      const page = await store.readAll({ after: checkpoint, limit: 100 });
      seen.push(...page.events);
      checkpoint = page.checkpoint;
    };
    try {
      await readPage();
      assert.ok(
        !seen.some((event) => event.type === 'B'),
        'B was read while A, begun before it, had not committed',
      );
      assert.ok(!seen.some((event) => event.type === 'A'), 'an uncommitted event was read');
    } finally {
      // Even when an assertion fails, A must end, or it would hold its locks and hang the cleanup.
      commitA.resolve();
      await transactionA;
    }
    await waitUntil(async () => {
      await readPage();
      return seen.length >= 3;
    }, 'A and B after A commits');

    assert.deepEqual(
      seen.map((event) => event.type),
      ['Early', 'A', 'B'],
    );
    assert.ok(seen[1]!.globalPosition < seen[2]!.globalPosition);
  });

  /**
   * Holds a transaction that has a transaction id open on `client` until `release` resolves; resolves
   * `holding` once it has its id, so everything appended after it gets a larger one.
   */
  function holdTransaction(client: SqlClient) {
    const holding = deferred();
    const release = deferred();
    const done = client.transaction(async (tx) => {
      await tx.query('SELECT pg_current_xact_id()');
      holding.resolve();
      await release.promise;
    });
    return { holding: holding.promise, release: () => release.resolve(), done };
  }

  async function readEverything(store: EventStore): Promise<string[]> {
    const { events } = await store.readAll({ after: START, limit: 100 });
    return events.map((event) => event.type);
  }

  it('reads past a transaction still running in another database of the same server', async () => {
    const store = await freshStore();
    const otherName = `es_other_${randomBytes(5).toString('hex')}`;
    await sql.query(`CREATE DATABASE ${otherName}`);
    const otherUrl = new URL(url);
    otherUrl.pathname = `/${otherName}`;
    const other = createPostgresClient({ connectionString: otherUrl.toString(), max: 1 });
    const otherTransaction = holdTransaction(other);
    try {
      await otherTransaction.holding;
      await store.append('stream', [{ type: 'Appended', data: 1 }], {
        expectedVersion: 'no_stream',
      });
      // Transaction ids are the server's: the older transaction of the other database cannot write this
      // store, so it must not hold its readers back (a batch's work held single checks back that way).
      assert.deepEqual(await readEverything(store), ['Appended']);
    } finally {
      otherTransaction.release();
      await otherTransaction.done;
      await other.close();
      await sql.query(`DROP DATABASE IF EXISTS ${otherName} WITH (FORCE)`);
    }
  });

  it('waits for an older transaction of its own database, which could still append', async () => {
    const store = await freshStore();
    const older = holdTransaction(sql);
    try {
      await older.holding;
      await store.append('stream', [{ type: 'Appended', data: 1 }], {
        expectedVersion: 'no_stream',
      });
      assert.deepEqual(await readEverything(store), []);
    } finally {
      older.release();
      await older.done;
    }
    assert.deepEqual(await readEverything(store), ['Appended']);
  });

  it('wakes a listener on another client (another process) after an append commits', async () => {
    const schema = `es_pg_${randomBytes(5).toString('hex')}`;
    const writer = await freshStore(sql, schema);
    const otherClient = createPostgresClient({
      connectionString: url,
      max: 2,
      applicationName: 'event-store-test-other',
    });
    try {
      const reader = await freshStore(otherClient, schema);
      let wakeUps = 0;
      const stop = await reader.onAppend(() => {
        wakeUps += 1;
      });

      await writer.sql.transaction(async (tx) => {
        await writer.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream', tx });
        await settlePostgresNotifications(otherClient);
        assert.equal(wakeUps, 0, 'woken before commit');
      });
      await waitUntil(() => wakeUps === 1, 'the wake-up on the other client');

      const events = await reader.readStream('s');
      assert.equal(events.length, 1);
      await stop();
    } finally {
      await otherClient.close();
    }
  });

  it('still makes exactly one winner when racing appenders come from separate clients', async () => {
    const schema = `es_pg_${randomBytes(5).toString('hex')}`;
    const clients = Array.from({ length: 4 }, () =>
      createPostgresClient({ connectionString: url, max: 5 }),
    );
    try {
      const stores = await Promise.all(clients.map((client) => freshStore(client, schema)));
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) =>
          stores[index % stores.length]!.append('shared', [{ type: 'E', data: index }], {
            expectedVersion: 'no_stream',
          }),
        ),
      );
      assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1);
      assert.equal(await stores[0]!.streamVersion('shared'), 1);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  after(async () => {
    for (const schema of schemas) await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.close();
  });
});
