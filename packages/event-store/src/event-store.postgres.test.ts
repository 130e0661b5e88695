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
