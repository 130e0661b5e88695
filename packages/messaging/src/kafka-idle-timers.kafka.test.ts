import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKafkaBus } from './kafka/kafka-bus.js';
import type { Bus, Subscription } from './types.js';

const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
if (!brokers) {
  throw new Error(
    'VOP_TEST_KAFKA_BROKERS is not set: start a broker with `bash infra/local/kafka.sh start` and set ' +
      'VOP_TEST_KAFKA_BROKERS=$(bash infra/local/kafka.sh brokers)',
  );
}

/**
 * Watches timers from now on: how many were made (every `setTimeout` is one; a `setInterval` one however
 * often it fires), and how many times their callbacks ran (each a wake-up of the process; an interval
 * counts per firing). Only timers made after the watch starts are seen firing.
 */
function watchTimers(): { created: () => number; wakeUps: () => number; stop: () => void } {
  const timers = new Set<number>();
  let wakeUps = 0;
  let created = 0;
  const hook = createHook({
    init(asyncId, type) {
      if (type !== 'Timeout') return;
      created += 1;
      timers.add(asyncId);
    },
    before(asyncId) {
      if (timers.has(asyncId)) wakeUps += 1;
    },
    destroy(asyncId) {
      timers.delete(asyncId);
    },
  });
  hook.enable();
  return { created: () => created, wakeUps: () => wakeUps, stop: () => hook.disable() };
}

/**
 * A producer and a consumer that have done their work: a topic of one partition, a subscription to it,
 * and one message published and consumed.
 */
async function consumedOneMessage(bus: Bus, topic: string): Promise<Subscription> {
  await bus.ensureTopics([{ name: topic, partitions: 1 }]);
  const received: string[] = [];
  const subscription = await bus.subscribe({
    groupId: `${topic}.group`,
    topics: [topic],
    fromBeginning: true,
    handler: async (message) => {
      received.push(message.value.toString());
    },
  });
  await bus.publish(topic, [{ key: 'k', value: 'v' }]);
  for (let waited = 0; received.length === 0; waited += 50) {
    assert.ok(waited < 30_000, 'the message was not consumed');
    await sleep(50);
  }
  return subscription;
}

// kafkajs 2.2.4 re-armed a 1 ms timer on every broker connection, idle or not (tulios/kafkajs#1556):
// ~1,000 wakeups a second per connection in every process. patches/kafkajs@2.2.4.patch stops it.
describe('an idle Kafka bus (patches/kafkajs@2.2.4.patch)', () => {
  let bus: Bus;
  let subscription: Subscription | undefined;

  before(() => {
    bus = createKafkaBus({
      brokers: brokers.split(','),
      clientId: 'vop-idle-timers-test',
      logLevel: 'error',
    });
  });

  after(async () => {
    await subscription?.close();
    await bus.close();
  });

  it('given a producer and a consumer that have done their work, when nothing is published for a second, then their connections arm no timer loop', async () => {
    subscription = await consumedOneMessage(bus, `idle-timers.${randomBytes(4).toString('hex')}`);

    const watch = watchTimers();
    await sleep(1_000).finally(() => watch.stop());
    const created = watch.created();
    // What is left is periodic: the consumer's long poll (a few a second), heartbeats and commits.
    assert.ok(created < 100, `${created} timers created in one idle second`);
  });

  it('given a producer and a consumer that have done their work, when nothing is published for two seconds, then timers wake the process about once a second, not once per connection', async () => {
    const topic = `idle-wakeups.${randomBytes(4).toString('hex')}`;
    // Watched before the bus exists, so the intervals its connections arm are seen firing.
    const watch = watchTimers();
    const ownBus = createKafkaBus({
      brokers: brokers.split(','),
      clientId: 'vop-idle-wakeups-test',
      logLevel: 'error',
    });
    let ownSubscription: Subscription | undefined;
    let idleWakeUps: number;
    try {
      ownSubscription = await consumedOneMessage(ownBus, topic);
      const before = watch.wakeUps();
      await sleep(2_000);
      idleWakeUps = watch.wakeUps() - before;
    } finally {
      watch.stop();
      await ownSubscription?.close();
      await ownBus.close();
    }
    // kafkajs checked each connection's requests for their timeout every 100 ms (ten wake-ups a second
    // per connection); patched to once a second, on one timer for all the process's connections (this
    // bus has five: 10 wake-ups in two seconds with a timer each).
    assert.ok(idleWakeUps <= 4, `${idleWakeUps} timer wake-ups in two idle seconds`);
  });
});
