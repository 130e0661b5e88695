import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createPostgresClient, EventStore } from '@vop/event-store';
import { createKafkaBus } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import { createTestDatabase, eventually, requireEnv } from '@vop/testing';
import { OutboxRelayThread } from './relay-thread.js';

const entry = new URL('./relay-thread.fixture.js', import.meta.url);
const logger = createLogger({ service: 'relay-thread-test', level: 'silent' });
const SCHEMA = 'relay_thread_test';

describe('an outbox relay on a thread of its own (real PostgreSQL and Kafka)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function setup() {
    const database = await createTestDatabase('relay_thread');
    const sql = createPostgresClient({ connectionString: database.url });
    const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS').split(',');
    const bus = createKafkaBus({ brokers, clientId: 'relay-thread-test' });
    cleanups.push(async () => {
      await bus.close();
      await sql.close();
      await database.drop();
    });
    const suffix = randomUUID().slice(0, 8);
    const topic = `relay-thread-${suffix}`;
    const name = `relay-thread-${suffix}`;
    const store = new EventStore(sql, { schema: SCHEMA });
    await store.migrate();
    await sql.query(`CREATE TABLE IF NOT EXISTS ${SCHEMA}.thread_ended (name text PRIMARY KEY)`);
    await bus.ensureTopics([{ name: topic, partitions: 2 }]);
    const received = new Set<string>();
    const subscription = await bus.subscribe({
      groupId: `relay-thread-reader-${suffix}`,
      topics: [topic],
      fromBeginning: true,
      batchHandler: async (messages) => {
        for (const message of messages)
          received.add((JSON.parse(message.value) as { eventId: string }).eventId);
      },
    });
    cleanups.push(() => subscription.close());
    const relay = new OutboxRelayThread({
      entry,
      workerData: { databaseUrl: database.url, brokers, schema: SCHEMA, topic, name },
      logger,
    });
    const append = async (type: string): Promise<string> => {
      const {
        events: [event],
      } = await store.append(`thing-${randomUUID()}`, [{ type, data: {} }], {
        expectedVersion: 'any',
      });
      assert.ok(event);
      return event.eventId;
    };
    return { store, relay, received, name, append };
  }

  it('publishes what the store appends, turns ready, and at stop stores its checkpoint and ends its thread', async () => {
    const { store, relay, received, name, append } = await setup();
    await relay.start();
    await eventually(async () => (relay.isReady() ? true : undefined), { what: 'ready' });
    const appended: string[] = [];
    for (let index = 0; index < 20; index++) appended.push(await append('ThingHappened'));
    await eventually(async () => (appended.every((id) => received.has(id)) ? true : undefined), {
      timeoutMs: 30_000,
      what: 'every appended event on the topic',
    });
    await relay.stop();
    assert.equal(relay.isReady(), false);
    const stored = await store.loadCheckpoint(name);
    const after = await store.readAll({ after: stored, limit: 10 });
    assert.equal(after.events.length, 0, 'the stored checkpoint is past every published event');
  });

  it('starts a thread that ended again, not ready meanwhile, and publishes what was appended', async () => {
    const { relay, received, append } = await setup();
    await relay.start();
    await eventually(async () => (relay.isReady() ? true : undefined), { what: 'ready' });
    const before = await append('EndThisThread');
    let sawNotReady = false;
    await eventually(
      async () => {
        if (!relay.isReady()) sawNotReady = true;
        return sawNotReady && relay.isReady() ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 5, what: 'the thread ended and started again' },
    );
    const afterRestart = await append('ThingHappened');
    await eventually(
      async () => (received.has(before) && received.has(afterRestart) ? true : undefined),
      { timeoutMs: 30_000, what: 'both events on the topic' },
    );
    await relay.stop();
  });

  it('refuses to start when the thread cannot reach its database, with the error a start retries on, and leaves no thread behind', async () => {
    const relay = new OutboxRelayThread({
      entry,
      workerData: {
        databaseUrl: 'postgres://vop:vop@127.0.0.1:1/none',
        brokers: requireEnv('VOP_TEST_KAFKA_BROKERS').split(','),
        schema: SCHEMA,
        topic: 'never-used',
        name: 'never-started',
      },
      logger,
    });
    // The code crosses the thread boundary, so the gateway's start waits a database out (isTransientError).
    await assert.rejects(relay.start(), { code: 'ECONNREFUSED' });
    assert.equal(relay.isReady(), false);
    // Nothing to stop: the thread that failed has ended.
    await relay.stop();
  });
});
