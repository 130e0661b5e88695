import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { createInProcessBus, PriorityGate } from '@vop/messaging';
import { backgroundConsumersYield } from './background-consumers-yield.js';

/** Polls until the condition holds (a generous deadline: the machine may be loaded). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('embedded: background consumers yield to single checks', () => {
  it('given a single check in flight, when a message comes, then the single-check path gets it and read models wait', async () => {
    const gate = new PriorityGate({ maxWaitMs: 60_000 });
    const bus = backgroundConsumersYield(createInProcessBus(), gate);
    const seen: string[] = [];
    const consumer = (groupId: string) =>
      bus.subscribe({
        groupId,
        topics: ['completions'],
        batchHandler: async () => {
          seen.push(groupId);
        },
      });
    const subscriptions = [
      await consumer('gateway-waiters-e1'),
      await consumer('analytics-projections-g1'),
      await consumer('batch-progress'),
      await consumer('batch-domestic-accounts'),
    ];
    let endSingleCheck!: () => void;
    const singleCheck = gate.high(() => new Promise<void>((resolve) => (endSingleCheck = resolve)));
    try {
      await bus.publish('completions', [{ key: 'v-1', value: '{}' }]);
      await until(() => seen.includes('gateway-waiters-e1'));
      for (let index = 0; index < 20; index += 1) await turn();
      assert.deepEqual(seen, ['gateway-waiters-e1']);

      endSingleCheck();
      await singleCheck;

      await until(() => seen.length === 4);
      assert.deepEqual([...seen].sort(), [
        'analytics-projections-g1',
        'batch-domestic-accounts',
        'batch-progress',
        'gateway-waiters-e1',
      ]);
    } finally {
      for (const subscription of subscriptions) await subscription.close();
      await bus.close();
    }
  });

  it('given a background group held behind a single check, when lag is asked through the wrapper, then the bus answers it', async () => {
    const gate = new PriorityGate({ maxWaitMs: 60_000 });
    const bus = backgroundConsumersYield(createInProcessBus(), gate);
    await bus.ensureTopics([{ name: 'completions', partitions: 1 }]);
    const subscription = await bus.subscribe({
      groupId: 'batch-progress',
      topics: ['completions'],
      batchHandler: async () => {},
    });
    let endSingleCheck!: () => void;
    const singleCheck = gate.high(() => new Promise<void>((resolve) => (endSingleCheck = resolve)));
    try {
      await bus.publish('completions', [
        { key: 'v-1', value: '{}' },
        { key: 'v-2', value: '{}' },
      ]);
      assert.deepEqual(bus.subscribedGroups?.(), [
        { groupId: 'batch-progress', topics: ['completions'] },
      ]);
      assert.deepEqual(await bus.consumerLagByPartition?.('batch-progress', ['completions']), [
        { topic: 'completions', partition: 0, lag: 2 },
      ]);
      assert.equal(await bus.consumerLag?.('batch-progress', ['completions']), 2);
    } finally {
      endSingleCheck();
      await singleCheck;
      await subscription.close();
      await bus.close();
    }
  });

  it('given a delivery of sixty, then a background consumer handles it in one unit in a quiet spell and in units of 25 while single checks come', async () => {
    let now = 0;
    const gate = new PriorityGate({ maxWaitMs: 60_000, now: () => now });
    const bus = backgroundConsumersYield(createInProcessBus({ partitionsPerTopic: 1 }), gate);
    await bus.ensureTopics([{ name: 'account-events', partitions: 1 }]);
    const units: number[] = [];
    const subscription = await bus.subscribe({
      groupId: 'batch-domestic-accounts',
      topics: ['account-events'],
      maxBatchSize: 500,
      batchHandler: async (messages) => void units.push(messages.length),
    });
    const sixty = () =>
      bus.publish(
        'account-events',
        Array.from({ length: 60 }, (_, index) => ({ key: `a-${index}`, value: '{}' })),
      );
    try {
      await sixty();
      await until(() => units.length === 1);
      assert.deepEqual(units, [60]);
      await gate.high(async () => {});
      now += 10;
      assert.equal(gate.highActive(), true);
      await sixty();
      await until(() => units.reduce((sum, size) => sum + size, 0) === 120);
      assert.deepEqual(units, [60, 25, 25, 10]);
    } finally {
      await subscription.close();
      await bus.close();
    }
  });
});
