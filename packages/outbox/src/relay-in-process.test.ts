import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgliteClient, EventStore } from '@vop/event-store';
import { createInProcessBus, type IncomingMessage, type OutgoingMessage } from '@vop/messaging';
import { eventually } from '@vop/testing';
import { OutboxRelay, SHARED_THREAD_BATCH_RELAY_PAGE } from './relay.js';

describe('outbox relay on the in-process bus', () => {
  it('given a group still handling a published batch, when more is appended, then it is published at once and the stored checkpoint waits for the slow group', async () => {
    const sql = await createPgliteClient({});
    const bus = createInProcessBus();
    await bus.ensureTopics([
      { name: 'slow-things', partitions: 1 },
      { name: 'things', partitions: 1 },
    ]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slowSeen: string[] = [];
    await bus.subscribe({
      groupId: 'slow',
      topics: ['slow-things'],
      handler: async (message) => {
        slowSeen.push(message.value);
        await released;
      },
    });
    const received: string[] = [];
    await bus.subscribe({
      groupId: 'fast',
      topics: ['things'],
      handler: async (message) => void received.push(message.value),
    });
    const store = new EventStore(sql, { schema: 'relay_in_process_test' });
    await store.migrate();
    const relay = new OutboxRelay({
      store,
      bus,
      name: 'relay',
      route: (event) => ({
        topic: (event.data as { slow: boolean }).slow ? 'slow-things' : 'things',
        key: 'k',
      }),
      checkpointIntervalMs: 0,
      pollIntervalMs: 50,
    });
    await relay.start();
    try {
      await store.append('slow-1', [{ type: 'ThingHappened', data: { slow: true } }], {
        expectedVersion: 'any',
      });
      await eventually(async () => (slowSeen.length === 1 ? true : undefined));
      await store.append('fast-1', [{ type: 'ThingHappened', data: { slow: false } }], {
        expectedVersion: 'any',
      });

      await eventually(async () => (received.length === 1 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'the second batch published while the first is still handled',
      });
      assert.equal((await store.loadCheckpoint('relay')).globalPosition, 0n);

      release();
      const { events } = await store.readAll({
        after: await store.loadCheckpoint('relay'),
        limit: 10,
      });
      assert.equal(events.length, 2);
      await eventually(
        async () =>
          (await store.readAll({ after: await store.loadCheckpoint('relay'), limit: 10 })).events
            .length === 0
            ? true
            : undefined,
        { timeoutMs: 30_000, what: 'the checkpoint stored once every group handled both' },
      );
    } finally {
      release();
      await relay.stop();
      await bus.close();
      await sql.close();
    }
  });
  it('given streams read at commit, when it starts, then it publishes their events from before the start and passes over the later ones, moving its checkpoint past them', async () => {
    const { sql, bus, store, received } = await thingsReader(
      'relay_read_at_commit_test',
      (message) => message.key,
    );
    const append = (streamId: string) =>
      store.append(streamId, [{ type: 'ThingHappened', data: { streamId } }], {
        expectedVersion: 'any',
      });
    // Left by a run before: not yet published.
    await append('account-1');
    await append('thing-1');
    const relay = new OutboxRelay({
      store,
      bus,
      name: 'relay',
      route: (event) => ({ topic: 'things', key: event.streamId }),
      readAtCommit: { streamPrefix: 'account-' },
      checkpointIntervalMs: 0,
      pollIntervalMs: 50,
    });
    await relay.start();
    try {
      await append('account-2');
      await append('thing-2');
      // A full page of them: the relay reads on at once.
      for (let index = 3; index < 600; index += 1) await append(`account-${index}`);
      const last = await append('account-last');
      await eventually(
        async () =>
          (await store.loadCheckpoint('relay')).globalPosition === last.events[0]?.globalPosition
            ? true
            : undefined,
        { timeoutMs: 30_000, what: 'the stored checkpoint past the last event passed over' },
      );
      assert.deepEqual(received, ['account-1', 'thing-1', 'thing-2']);
    } finally {
      await relay.stop();
      await bus.close();
      await sql.close();
    }
  });
  it('given a backlog, when it publishes, then every round holds at most batchSize events, all in order', async () => {
    const sql = await createPgliteClient({});
    const inner = createInProcessBus();
    await inner.ensureTopics([{ name: 'things', partitions: 1 }]);
    const rounds: number[] = [];
    const bus = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === 'publish')
          return (topic: string, messages: OutgoingMessage[]) => {
            rounds.push(messages.length);
            return target.publish(topic, messages);
          };
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const received: string[] = [];
    await inner.subscribe({
      groupId: 'reader',
      topics: ['things'],
      handler: async (message) => void received.push(message.value),
    });
    const store = new EventStore(sql, { schema: 'relay_pages_test' });
    await store.migrate();
    await store.startStreams(
      Array.from({ length: 120 }, (_, index) => ({
        streamId: `thing-${index}`,
        events: [{ type: 'ThingHappened', data: { index } }],
      })),
    );
    const relay = new OutboxRelay({
      store,
      bus,
      name: 'relay',
      route: () => ({ topic: 'things', key: 'k' }),
      batchSize: SHARED_THREAD_BATCH_RELAY_PAGE,
    });
    await relay.start();
    try {
      await eventually(async () => (received.length === 120 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'the backlog published',
      });
      assert.ok(rounds.length >= 3, `120 events in ${rounds.length} rounds`);
      assert.ok(
        rounds.every((size) => size <= SHARED_THREAD_BATCH_RELAY_PAGE),
        String(rounds),
      );
      assert.deepEqual(
        received.map((value) => (JSON.parse(value) as { data: { index: number } }).data.index),
        Array.from({ length: 120 }, (_, index) => index),
      );
    } finally {
      await relay.stop();
      await inner.close();
      await sql.close();
    }
  });
  it('given a linger, when appends arrive one by one, then they go out in fewer publications, every one of them', async () => {
    const publicationsFor = async (lingerMs: number) => {
      const { sql, bus, store, received } = await thingsReader(
        'relay_linger_test',
        (message) => message.value,
      );
      let publications = 0;
      const relay = new OutboxRelay({
        store,
        bus,
        name: 'relay',
        route: () => ({ topic: 'things', key: 'k' }),
        lingerMs,
        onPublished: () => void publications++,
      });
      await relay.start();
      const APPENDS = 12;
      for (let index = 0; index < APPENDS; index++) {
        await store.append(`thing-${index}`, [{ type: 'ThingHappened', data: { index } }], {
          expectedVersion: 'any',
        });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await eventually(async () => (received.length === APPENDS ? true : undefined), {
        timeoutMs: 30_000,
        what: 'every append published',
      });
      await relay.stop();
      await sql.close();
      return publications;
    };
    const atEveryAppend = await publicationsFor(0);
    // 12 appends 10 ms apart (~150 ms in all) fit in a few rounds of 500 ms.
    const lingering = await publicationsFor(500);
    assert.ok(lingering <= 3, `publications with a linger: ${lingering}`);
    assert.ok(
      lingering < atEveryAppend,
      `with a linger ${lingering}, at every append ${atEveryAppend}`,
    );
  });
});

/** A store in PGlite and an in-process bus whose topic `things` a group reads, keeping what `keep` takes. */
async function thingsReader(schema: string, keep: (message: IncomingMessage) => string) {
  const sql = await createPgliteClient({});
  const bus = createInProcessBus();
  await bus.ensureTopics([{ name: 'things', partitions: 1 }]);
  const received: string[] = [];
  await bus.subscribe({
    groupId: 'reader',
    topics: ['things'],
    handler: async (message) => void received.push(keep(message)),
  });
  const store = new EventStore(sql, { schema });
  await store.migrate();
  return { sql, bus, store, received };
}
