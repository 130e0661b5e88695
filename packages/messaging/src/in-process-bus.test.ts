import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { busContract, waitUntil } from './bus-contract.js';
import { createInProcessBus } from './in-process/in-process-bus.js';
import { partitionFor } from './partitioner.js';
import type { IncomingMessage } from './types.js';

busContract('in-process', () => createInProcessBus({ redeliveryDelayMs: 10 }), {
  waitTimeoutMs: 5_000,
});

/** A promise the test opens by hand, to hold handlers at a known point. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Lets every queued microtask, timer-free callback and I/O turn run. */
async function drainEventLoop(turns = 20): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe('in-process bus', () => {
  it('never runs a handler inside publish', async () => {
    const bus = createInProcessBus();
    let handled = 0;
    await bus.subscribe({ groupId: 'g', topics: ['t'], handler: async () => void handled++ });
    const publishing = bus.publish('t', [{ key: 'k', value: 'v' }]);
    assert.equal(handled, 0);
    await publishing;
    await bus.settled();
    assert.equal(handled, 1);
    await bus.close();
  });

  it('creates unknown topics with the default partition count', async () => {
    const bus = createInProcessBus({ defaultPartitions: 3 });
    const received: IncomingMessage[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['auto'],
      handler: async (message) => void received.push(message),
    });
    const keys = Array.from({ length: 30 }, (_, index) => `key-${index}`);
    await bus.publish(
      'auto',
      keys.map((key) => ({ key, value: key })),
    );
    await bus.settled();
    for (const message of received) assert.equal(message.partition, partitionFor(message.key, 3));
    assert.deepEqual(new Set(received.map((message) => message.partition)), new Set([0, 1, 2]));
    await bus.close();
  });

  it('with partitionsPerTopic, a group gets everything published together as one batch', async () => {
    const bus = createInProcessBus({ partitionsPerTopic: 1 });
    await bus.ensureTopics([{ name: 'requests', partitions: 8 }]);
    const batches: IncomingMessage[][] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['requests'],
      batchHandler: async (messages) => void batches.push(messages),
    });
    const keys = Array.from({ length: 30 }, (_, index) => `key-${index}`);
    await bus.publish(
      'requests',
      keys.map((key) => ({ key, value: key })),
    );
    await bus.settled();
    assert.deepEqual(
      batches.map((batch) => batch.map((message) => message.value)),
      [keys],
    );
    await bus.close();
  });

  it('settled() waits until every subscribed group has handled what was published before it', async () => {
    const bus = createInProcessBus();
    const slow = gate();
    const fast: string[] = [];
    const held: string[] = [];
    await bus.subscribe({
      groupId: 'fast',
      topics: ['t'],
      handler: async (message) => void fast.push(message.value),
    });
    await bus.subscribe({
      groupId: 'slow',
      topics: ['t'],
      handler: async (message) => {
        await slow.opened;
        held.push(message.value);
      },
    });
    await bus.publish('t', [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);

    let settled = false;
    const settling = bus.settled().then(() => (settled = true));
    await drainEventLoop();
    assert.equal(fast.length, 2);
    assert.equal(settled, false, 'the slow group has not handled its messages yet');

    slow.open();
    await settling;
    assert.deepEqual(held.sort(), ['1', '2']);
    await bus.close();
  });

  it('settled() waits through redelivery and resolves at once when nothing is pending', async () => {
    const bus = createInProcessBus({ redeliveryDelayMs: 1 });
    await bus.settled();
    let failures = 0;
    const handled: string[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handler: async (message) => {
        if (failures < 3) {
          failures++;
          throw new Error('not yet');
        }
        handled.push(message.value);
      },
    });
    await bus.publish('t', [{ key: 'k', value: 'v' }]);
    await bus.settled();
    assert.equal(failures, 3);
    assert.deepEqual(handled, ['v']);
    await bus.close();
  });

  it('settled() stops waiting for a group whose last consumer left', async () => {
    const bus = createInProcessBus();
    const never = gate();
    const subscription = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handler: () => never.opened,
    });
    await bus.publish('t', [{ key: 'k', value: 'v' }]);
    const settling = bus.settled();
    const closing = subscription.close();
    never.open(); // lets close() finish waiting for the handler in flight
    await closing;
    await settling;
    await bus.close();
  });

  it('trims the log below the slowest group, and a late group from the beginning starts at what is left', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    const release = gate();
    let handledBySlow = 0;
    await bus.subscribe({ groupId: 'fast', topics: ['t'], handler: async () => undefined });
    await bus.subscribe({
      groupId: 'slow',
      topics: ['t'],
      handler: async () => {
        if (handledBySlow === 5) await release.opened;
        handledBySlow++;
      },
    });
    await bus.publish(
      't',
      Array.from({ length: 10 }, (_, index) => ({ key: 'k', value: String(index) })),
    );
    await waitUntil(() => handledBySlow === 5, 'the slow group to reach offset 5', 5_000);
    await drainEventLoop();
    assert.deepEqual(bus.retainedMessages('t'), [5], 'offsets 0-4 are committed by both groups');

    const late: string[] = [];
    await bus.subscribe({
      groupId: 'late',
      topics: ['t'],
      handler: async (message) => void late.push(message.offset),
    });
    release.open();
    await bus.settled();
    assert.deepEqual(late, ['5', '6', '7', '8', '9']);
    assert.deepEqual(bus.retainedMessages('t'), [0]);
    await bus.close();
  });

  it('keeps memory flat over many messages once they are handled', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 't', partitions: 2 }]);
    let handled = 0;
    await bus.subscribe({ groupId: 'g', topics: ['t'], handler: async () => void handled++ });
    for (let round = 0; round < 20; round++) {
      await bus.publish(
        't',
        Array.from({ length: 1_000 }, (_, index) => ({ key: `k${index}`, value: 'v' })),
      );
      await bus.settled();
    }
    assert.equal(handled, 20_000);
    assert.deepEqual(bus.retainedMessages('t'), [0, 0]);
    await bus.close();
  });

  it('moves partitions to a consumer that joins the group', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 't', partitions: 4 }]);
    const first: IncomingMessage[] = [];
    const second: IncomingMessage[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handler: async (message) => void first.push(message),
    });
    const keys = Array.from({ length: 40 }, (_, index) => `k${index}`);
    await bus.publish(
      't',
      keys.map((key) => ({ key, value: 'before' })),
    );
    await bus.settled();
    assert.equal(first.length, 40);

    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handler: async (message) => void second.push(message),
    });
    await bus.publish(
      't',
      keys.map((key) => ({ key, value: 'after' })),
    );
    await bus.settled();
    const firstAfter = first.filter((message) => message.value === 'after');
    assert.equal(firstAfter.length + second.length, 40);
    assert.ok(firstAfter.length > 0 && second.length > 0, 'both members handle a share');
    const secondPartitions = new Set(second.map((message) => message.partition));
    assert.ok(firstAfter.every((message) => !secondPartitions.has(message.partition)));
    await bus.close();
  });

  it('runs at most partitionsConsumedConcurrently handlers of one consumer at once', async () => {
    for (const concurrency of [1, 3]) {
      const bus = createInProcessBus();
      await bus.ensureTopics([{ name: 't', partitions: 8 }]);
      const release = gate();
      let active = 0;
      let mostActive = 0;
      await bus.subscribe({
        groupId: 'g',
        topics: ['t'],
        partitionsConsumedConcurrently: concurrency === 1 ? undefined : concurrency,
        handler: async () => {
          active++;
          mostActive = Math.max(mostActive, active);
          await release.opened;
          active--;
        },
      });
      await bus.publish(
        't',
        Array.from({ length: 64 }, (_, index) => ({ key: `k${index}`, value: 'v' })),
      );
      await waitUntil(() => active === concurrency, `${concurrency} handlers running`, 5_000);
      await drainEventLoop();
      assert.equal(active, concurrency);
      release.open();
      await bus.settled();
      assert.equal(mostActive, concurrency);
      await bus.close();
    }
  });

  it('cuts a waiting backlog into batches of maxBatchSize and the rest', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    await bus.publish(
      't',
      Array.from({ length: 10 }, (_, index) => ({ key: 'k', value: String(index) })),
    );
    const batches: string[][] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      maxBatchSize: 4,
      batchHandler: async (messages) =>
        void batches.push(messages.map((message) => message.offset)),
    });
    await bus.settled();
    assert.deepEqual(batches, [
      ['0', '1', '2', '3'],
      ['4', '5', '6', '7'],
      ['8', '9'],
    ]);
    await bus.close();
  });

  it('with maxDeliverySize, hands a backlog over in deliveries no larger, a turn of the event loop between them', async () => {
    const bus = createInProcessBus({ partitionsPerTopic: 1, maxDeliverySize: 4 });
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    await bus.publish(
      't',
      Array.from({ length: 10 }, (_, index) => ({ key: 'k', value: String(index) })),
    );
    const batches: string[][] = [];
    // Whether the event loop turned since the previous delivery: each delivery arms an immediate.
    let turned = true;
    const turnedBeforeDelivery: boolean[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      // The subscription would take all ten at once; the bus's cap wins.
      maxBatchSize: 500,
      // Handled without any await: only the bus can give the event loop its turns.
      batchHandler: (messages) => {
        batches.push(messages.map((message) => message.offset));
        turnedBeforeDelivery.push(turned);
        turned = false;
        setImmediate(() => (turned = true));
        return Promise.resolve();
      },
    });
    await bus.settled();
    assert.deepEqual(batches, [
      ['0', '1', '2', '3'],
      ['4', '5', '6', '7'],
      ['8', '9'],
    ]);
    assert.deepEqual(turnedBeforeDelivery, [true, true, true]);
    await bus.close();
  });

  it('with maxDeliverySize a function, asks it at each delivery', async () => {
    let cap = 2;
    const bus = createInProcessBus({ partitionsPerTopic: 1, maxDeliverySize: () => cap });
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    await bus.publish(
      't',
      Array.from({ length: 9 }, (_, index) => ({ key: 'k', value: String(index) })),
    );
    const sizes: number[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      maxBatchSize: 500,
      batchHandler: (messages) => {
        sizes.push(messages.length);
        cap = 5;
        return Promise.resolve();
      },
    });
    await bus.settled();
    assert.deepEqual(sizes, [2, 5, 2]);
    await bus.close();
  });

  it('refuses a maxDeliverySize that is not a positive integer', () => {
    assert.throws(() => createInProcessBus({ maxDeliverySize: 0 }), /maxDeliverySize/);
  });

  it('gathers what was published while a batch was being handled into the next batch', async () => {
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    const release = gate();
    const batches: string[][] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      batchHandler: async (messages) => {
        batches.push(messages.map((message) => message.value));
        if (batches.length === 1) await release.opened;
      },
    });
    await bus.publish('t', [{ key: 'k', value: 'a' }]);
    await waitUntil(() => batches.length === 1, 'the first batch', 5_000);
    for (const value of ['b', 'c', 'd']) await bus.publish('t', [{ key: 'k', value }]);
    release.open();
    await bus.settled();
    assert.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
    await bus.close();
  });

  it('delivers a failed batch again without what arrived meanwhile', async () => {
    const bus = createInProcessBus({ redeliveryDelayMs: 1 });
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    const batches: string[][] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      batchHandler: async (messages) => {
        batches.push(messages.map((message) => message.value));
        if (batches.length === 1) {
          await bus.publish('t', [{ key: 'k', value: 'later' }]);
          throw new Error('first attempt fails');
        }
      },
    });
    await bus.publish('t', [
      { key: 'k', value: 'first' },
      { key: 'k', value: 'second' },
    ]);
    await bus.settled();
    // 'later' was published after the first settled() began, so only a second one waits for it.
    await bus.settled();
    assert.deepEqual(batches, [['first', 'second'], ['first', 'second'], ['later']]);
    await bus.close();
  });

  it('settled() waits for batch subscribers through redelivery, and handled batches are trimmed', async () => {
    const bus = createInProcessBus({ redeliveryDelayMs: 1 });
    await bus.ensureTopics([{ name: 't', partitions: 2 }]);
    let failures = 0;
    const handled: string[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      maxBatchSize: 3,
      batchHandler: async (messages) => {
        if (failures < 2) {
          failures++;
          throw new Error('not yet');
        }
        handled.push(...messages.map((message) => message.value));
      },
    });
    const sent = Array.from({ length: 20 }, (_, index) => ({
      key: `k${index}`,
      value: String(index),
    }));
    await bus.publish('t', sent);
    await bus.settled();
    assert.equal(failures, 2);
    assert.deepEqual(handled.sort(), sent.map((message) => message.value).sort());
    assert.deepEqual(bus.retainedMessages('t'), [0, 0]);
    await bus.close();
  });

  it('close() waits for handlers in flight, fails pending settled() calls and refuses further use', async () => {
    const bus = createInProcessBus();
    const release = gate();
    let finished = false;
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handler: async () => {
        await release.opened;
        finished = true;
      },
    });
    await bus.publish('t', [{ key: 'k', value: 'v' }]);
    await drainEventLoop();
    const settling = bus.settled();
    const closing = bus.close();
    await assert.rejects(settling, /closed/);
    release.open();
    await closing;
    assert.equal(finished, true);
    await assert.rejects(bus.publish('t', [{ key: 'k', value: 'v' }]), /closed/);
    await assert.rejects(
      bus.subscribe({ groupId: 'g', topics: ['t'], handler: async () => undefined }),
      /closed/,
    );
  });
});
