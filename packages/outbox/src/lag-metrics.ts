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

/** Every registration per registry: a process main and the services it runs each add theirs. */
const registered = new WeakMap<ServiceMetrics, LagSources[]>();

/**
 * consumer_lag{topic,partition,group} from the broker's committed and end offsets, and
 * outbox_lag_events{relay} from the event store, both read when Prometheus scrapes. Several calls on
 * one registry add up (a group or relay named twice is read once). A source that does not answer in
 * time leaves its series out of that scrape (absent, not a stale number).
 */
export function registerLagMetrics(metrics: ServiceMetrics, sources: LagSources): void {
  const existing = registered.get(metrics);
  if (existing !== undefined) {
    existing.push(sources);
    return;
  }
  const all = [sources];
  registered.set(metrics, all);
  metrics.gauge({
    name: 'consumer_lag',
    help: 'Messages between a consumer group position and the end of the partition',
    labelNames: ['topic', 'partition', 'group'],
    async collect(gauge) {
      gauge.reset();
      const seen = new Set<string>();
      const reads: Array<Promise<void>> = [];
      for (const { bus, consumers, timeoutMs } of all) {
        if (bus.consumerLagByPartition === undefined) continue;
        for (const { groupId, topics } of consumers()) {
          if (seen.has(groupId)) continue;
          seen.add(groupId);
          reads.push(
            within(bus.consumerLagByPartition(groupId, topics), timeoutMs ?? 2000).then((lags) => {
              for (const { topic, partition, lag } of lags ?? [])
                gauge.set({ topic, partition: String(partition), group: groupId }, lag);
            }),
          );
        }
      }
      await Promise.all(reads);
    },
  });
  metrics.gauge({
    name: 'outbox_lag_events',
    help: 'Events in the event store not yet published to the bus',
    labelNames: ['relay'],
    async collect(gauge) {
      gauge.reset();
      const seen = new Set<string>();
      const reads: Array<Promise<void>> = [];
      for (const { outboxes, timeoutMs } of all) {
        for (const { store, relayName } of outboxes) {
          if (seen.has(relayName)) continue;
          seen.add(relayName);
          reads.push(
            within(outboxLag(store, relayName), timeoutMs ?? 2000).then((lag) => {
              if (lag !== undefined) gauge.set({ relay: relayName }, lag);
            }),
          );
        }
      }
      await Promise.all(reads);
    },
  });
}
