import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import {
  createPgliteClient,
  createPostgresClient,
  EventStore,
  type SqlClient,
  type SqlExecutor,
} from '@vop/event-store';
import { type Bus, createInProcessBus, createKafkaBus } from '@vop/messaging';
import { createTestDatabase, eventually, requireEnv } from '@vop/testing';
import { idempotentBatchHandler, idempotentHandler, migrateInbox } from './inbox.js';
import { OutboxRelay } from './relay.js';

class SimulatedCrash extends Error {}

interface Setup {
  sql: SqlClient;
  bus: Bus;
  cleanup(): Promise<void>;
}

function relaySpec(name: string, makeSetup: () => Promise<Setup>): void {
  describe(`outbox relay and idempotent consumers (${name})`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it('a relay stopped between publishing and saving its checkpoint re-publishes on restart, and each read model applies every event once', async () => {
      const { sql, bus, cleanup } = await makeSetup();
      cleanups.push(cleanup);
      const suffix = randomUUID().slice(0, 8);
      const topic = `outbox-test-${suffix}`;
      const store = new EventStore(sql, { schema: 'outbox_test' });
      await store.migrate();
      await migrateInbox(sql, 'outbox_test');
      await sql.query(
        `CREATE TABLE IF NOT EXISTS outbox_test.applied (model text, event_id uuid, times int NOT NULL, PRIMARY KEY (model, event_id))`,
      );
      await bus.ensureTopics([{ name: topic, partitions: 4 }]);

      const EVENTS = 60;
      for (let index = 0; index < EVENTS; index++) {
        await store.append(`thing-${index % 7}`, [{ type: 'ThingHappened', data: { index } }], {
          expectedVersion: 'any',
        });
      }

      let deliveries = 0;
      const applyTo = (model: string) => async (envelope: { eventId: string }, tx: SqlExecutor) => {
        await tx.query(
          `INSERT INTO outbox_test.applied (model, event_id, times) VALUES ($1, $2, 1)
           ON CONFLICT (model, event_id) DO UPDATE SET times = outbox_test.applied.times + 1`,
          [model, envelope.eventId],
        );
      };
      // model-a applies message by message, model-b in batches: both must apply each event once.
      const perMessage = idempotentHandler({
        sql,
        schema: 'outbox_test',
        consumer: 'model-a',
        apply: applyTo('model-a'),
      });
      const subscriptionA = await bus.subscribe({
        groupId: `model-a-${suffix}`,
        topics: [topic],
        fromBeginning: true,
        handler: async (message) => {
          deliveries++;
          await perMessage(message);
        },
      });
      const perBatch = idempotentBatchHandler({
        sql,
        schema: 'outbox_test',
        consumer: 'model-b',
        applyBatch: async (envelopes, tx) => {
          for (const envelope of envelopes) await applyTo('model-b')(envelope, tx);
        },
      });
      const subscriptionB = await bus.subscribe({
        groupId: `model-b-${suffix}`,
        topics: [topic],
        fromBeginning: true,
        batchHandler: async (messages) => {
          deliveries += messages.length;
          await perBatch(messages);
        },
      });
      cleanups.push(
        () => subscriptionA.close(),
        () => subscriptionB.close(),
      );

      const route = (event: { streamId: string }) => ({ topic, key: event.streamId });
      const crashing = new OutboxRelay({
        store,
        bus,
        name: `relay-${suffix}`,
        route,
        batchSize: 1000,
        beforeCheckpoint: async () => {
          throw new SimulatedCrash('stopped after publishing, before the checkpoint');
        },
      });
      await assert.rejects(crashing.runOnce(), SimulatedCrash);
      assert.equal((await store.loadCheckpoint(`relay-${suffix}`)).globalPosition, 0n);

      const restarted = new OutboxRelay({
        store,
        bus,
        name: `relay-${suffix}`,
        route,
        pollIntervalMs: 50,
      });
      await restarted.start();
      cleanups.push(() => restarted.stop());

      await eventually(
        async () => {
          const { rows } = await sql.query<{ count: string }>(
            `SELECT count(*)::text AS count FROM outbox_test.applied`,
          );
          return Number(rows[0]?.count) === EVENTS * 2 && deliveries >= EVENTS * 4
            ? true
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 50, what: 'both read models and the re-publication' },
      );
      const { rows } = await sql.query<{ model: string; events: string; max: number; min: number }>(
        `SELECT model, count(*)::text AS events, max(times) AS max, min(times) AS min FROM outbox_test.applied GROUP BY model ORDER BY model`,
      );
      assert.deepEqual(rows, [
        { model: 'model-a', events: String(EVENTS), max: 1, min: 1 },
        { model: 'model-b', events: String(EVENTS), max: 1, min: 1 },
      ]);
      // Every event really was delivered twice to each model: the dedup, not luck, kept it at once.
      assert.ok(deliveries >= EVENTS * 4, `deliveries: ${deliveries}`);
      await eventually(async () =>
        (await store.loadCheckpoint(`relay-${suffix}`)).globalPosition > 0n ? true : undefined,
      );
    });

    it('stores its checkpoint once per interval, not once per publication, and at stop', async () => {
      const { sql, bus, cleanup } = await makeSetup();
      cleanups.push(cleanup);
      const suffix = randomUUID().slice(0, 8);
      const topic = `outbox-lazy-${suffix}`;
      const store = new EventStore(sql, { schema: 'outbox_lazy' });
      await store.migrate();
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      const received = new Set<string>();
      const subscription = await bus.subscribe({
        groupId: `lazy-${suffix}`,
        topics: [topic],
        fromBeginning: true,
        batchHandler: async (messages) => {
          for (const message of messages) received.add(message.value);
        },
      });
      cleanups.push(() => subscription.close());
      const relay = new OutboxRelay({
        store,
        bus,
        name: `lazy-${suffix}`,
        route: (event) => ({ topic, key: event.streamId }),
        pollIntervalMs: 20,
        checkpointIntervalMs: 3_600_000,
      });
      await relay.start();
      // The first publication stores the checkpoint (none was stored yet); the later ones wait.
      await store.append('first', [{ type: 'ThingHappened', data: {} }], {
        expectedVersion: 'any',
      });
      await eventually(async () => (received.size === 1 ? true : undefined));
      const stored = await eventually(async () => {
        const checkpoint = await store.loadCheckpoint(`lazy-${suffix}`);
        return checkpoint.globalPosition > 0n ? checkpoint : undefined;
      });
      for (let index = 0; index < 5; index++) {
        await store.append(`thing-${index}`, [{ type: 'ThingHappened', data: { index } }], {
          expectedVersion: 'any',
        });
        await eventually(async () => (received.size === index + 2 ? true : undefined));
      }
      assert.deepEqual(await store.loadCheckpoint(`lazy-${suffix}`), stored);
      await relay.stop();
      const last = (await store.readAll({ after: stored, limit: 10 })).checkpoint;
      assert.deepEqual(await store.loadCheckpoint(`lazy-${suffix}`), last);
    });
  });
}

relaySpec('PGlite and the in-process bus', async () => {
  const sql = await createPgliteClient({});
  const bus = createInProcessBus();
  return {
    sql,
    bus,
    cleanup: async () => {
      await bus.close();
      await sql.close();
    },
  };
});

relaySpec('PostgreSQL and Kafka', async () => {
  const database = await createTestDatabase('outbox');
  const sql = createPostgresClient({ connectionString: database.url, max: 4 });
  const bus = createKafkaBus({
    brokers: requireEnv('VOP_TEST_KAFKA_BROKERS').split(','),
    clientId: 'outbox-test',
    logLevel: 'error',
  });
  return {
    sql,
    bus,
    cleanup: async () => {
      await bus.close();
      await sql.close();
      await database.drop();
    },
  };
});
