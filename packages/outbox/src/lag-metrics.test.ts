import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createInProcessBus } from '@vop/messaging';
import { createMetricsRegistry } from '@vop/observability';
import { registerLagMetrics } from './lag-metrics.js';

describe('registerLagMetrics', () => {
  it('reads consumer lag per partition when scraped, from every registration, each group once', async () => {
    const bus = createInProcessBus({ defaultPartitions: 2 });
    await bus.ensureTopics([{ name: 'orders', partitions: 2 }]);
    await bus.publish('orders', [
      { key: 'a', value: '{}' },
      { key: 'b', value: '{}' },
      { key: 'c', value: '{}' },
    ]);
    const metrics = createMetricsRegistry({ service: 'spec', collectDefaultMetrics: false });
    registerLagMetrics(metrics, {
      bus,
      consumers: () => [{ groupId: 'billing', topics: ['orders'] }],
      outboxes: [],
    });
    registerLagMetrics(metrics, {
      bus,
      consumers: () => [
        { groupId: 'billing', topics: ['orders'] },
        { groupId: 'shipping', topics: ['orders'] },
      ],
      outboxes: [],
    });
    const lags = async (group: string): Promise<number[]> =>
      (await metrics.consumerLag.get()).values
        .filter((value) => value.labels.group === group)
        .map((value) => value.value);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    assert.equal(sum(await lags('billing')), 3);
    assert.equal((await lags('billing')).length, 2, 'one series per partition');
    assert.equal(sum(await lags('shipping')), 3);

    const handled: string[] = [];
    const subscription = await bus.subscribe({
      groupId: 'billing',
      topics: ['orders'],
      handler: async (message) => void handled.push(message.key),
    });
    await bus.settled();
    assert.equal(sum(await lags('billing')), 0, 'read again at the next scrape');
    assert.deepEqual(bus.subscribedGroups?.(), [{ groupId: 'billing', topics: ['orders'] }]);
    await subscription.close();
    await bus.close();
  });
});
