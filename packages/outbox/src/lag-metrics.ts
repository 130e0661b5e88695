import type { ServiceMetrics } from '@vop/observability';
import { outboxLag, type ServiceHealthSources } from './service-health.js';

export type LagSources = Pick<ServiceHealthSources, 'bus' | 'consumers' | 'outboxes' | 'timeoutMs'>;

async function within<T>(work: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * consumer_lag{topic,partition,group} from the broker's committed and end offsets, and
 * outbox_lag_events{relay} from the event store, both read when Prometheus scrapes. A source that
 * does not answer in time leaves its series out of that scrape (absent, not a stale number).
 */
export function registerLagMetrics(metrics: ServiceMetrics, sources: LagSources): void {
  const timeoutMs = sources.timeoutMs ?? 2000;
  const { bus } = sources;
  metrics.gauge({
    name: 'consumer_lag',
    help: 'Messages between a consumer group position and the end of the partition',
    labelNames: ['topic', 'partition', 'group'],
    async collect(gauge) {
      gauge.reset();
      if (bus.consumerLagByPartition === undefined) return;
      await Promise.all(
        sources.consumers().map(async ({ groupId, topics }) => {
          const lags = await within(bus.consumerLagByPartition!(groupId, topics), timeoutMs);
          for (const { topic, partition, lag } of lags ?? [])
            gauge.set({ topic, partition: String(partition), group: groupId }, lag);
        }),
      );
    },
  });
  metrics.gauge({
    name: 'outbox_lag_events',
    help: 'Events in the event store not yet published to the bus',
    labelNames: ['relay'],
    async collect(gauge) {
      gauge.reset();
      await Promise.all(
        sources.outboxes.map(async ({ store, relayName }) => {
          const lag = await within(outboxLag(store, relayName), timeoutMs);
          if (lag !== undefined) gauge.set({ relay: relayName }, lag);
        }),
      );
    },
  });
}
