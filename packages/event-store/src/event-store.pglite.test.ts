import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EventStore } from './event-store.js';
import { createPgliteClient } from './pglite-client.js';
import { createPgliteThreadClient } from './pglite-thread-client.js';
import { eventStoreSpec } from './spec/event-store-spec.js';
import { settlePgliteNotifications } from './spec/settle-notifications.js';
import { START, type SqlClient } from './types.js';

describe('EventStore on PGlite in memory', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
  });
  eventStoreSpec({ client: () => sql, settleNotifications: settlePgliteNotifications });
  after(() => sql.close());
});

describe('EventStore on PGlite on its own thread (the embedded service)', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteThreadClient({});
  });
  eventStoreSpec({ client: () => sql, settleNotifications: settlePgliteNotifications });
  after(() => sql.close());
});

describe('EventStore on PGlite on disk', () => {
  let sql: SqlClient;
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vop-event-store-'));
    sql = await createPgliteClient({ dataDir });
  });
  eventStoreSpec({ client: () => sql, settleNotifications: settlePgliteNotifications });
  after(async () => {
    await sql.close();
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe('PGlite persistence', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vop-event-store-reopen-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps events and checkpoints across close and reopen', async () => {
    const first = await createPgliteClient({ dataDir });
    const store = new EventStore(first, { schema: 'gateway' });
    await store.migrate();
    const appended = await store.append(
      'account-1',
      [
        { type: 'Opened', data: { n: 1 } },
        { type: 'Renamed', data: { n: 2 } },
      ],
      {
        expectedVersion: 'no_stream',
      },
    );
    const read = await store.readAll({ after: START, limit: 10 });
    await store.saveCheckpoint('projector', read.checkpoint);
    await first.close();

    const second = await createPgliteClient({ dataDir });
    try {
      const reopened = new EventStore(second, { schema: 'gateway' });
      await reopened.migrate();
      assert.deepEqual(await reopened.readStream('account-1'), appended.events);
      assert.deepEqual(await reopened.loadCheckpoint('projector'), read.checkpoint);

      const next = await reopened.append('account-1', [{ type: 'Closed', data: {} }], {
        expectedVersion: 2,
      });
      assert.equal(next.events[0]?.streamPosition, 3);
      assert.ok(next.events[0]!.globalPosition > appended.events[1]!.globalPosition);
      const after = await reopened.readAll({ after: read.checkpoint, limit: 10 });
      assert.deepEqual(
        after.events.map((event) => event.type),
        ['Closed'],
      );
    } finally {
      await second.close();
    }
  });
});
