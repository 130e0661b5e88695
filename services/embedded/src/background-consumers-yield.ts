import type { Bus, PriorityGate, SubscribeOptions } from '@vop/messaging';

/**
 * Consumers no single check waits for (analytics, batch progress and domestic accounts): their units go
 * through the gate's low priority, one at a time. On the one PGlite connection, a single check's
 * statement then queues behind one such unit at most instead of one per consumer. A single check's own
 * path is left alone: matching's decisions, the gateway's waiters, and its results read model (a
 * verification answered is readable at GET /verify/{id} at once); matching's batch units are gated there.
 */
// The webhook dispatcher is not among them: a delivery has its own bar (completion to delivery, p99
// ≤ 500 ms, ../shared/design.md §8) and its consuming transaction is small, while behind the gate it
// queued after analytics' units in one low lane: a burst's p99 was 0.9–1.2 s gated, 0.19–0.33 s not
// (bench/RESULTS.md §3).
const BACKGROUND_GROUPS = [/^analytics-/, /^batch-progress$/, /^batch-domestic-accounts$/];

/**
 * Most messages a background consumer handles in one unit (one transaction) while single checks come;
 * in a quiet spell (none in the last second) a unit is the whole delivery, so an import's events cost
 * each consumer fewer statements.
 */
const BACKGROUND_UNIT = 25;

export function backgroundConsumersYield(bus: Bus, gate: PriorityGate): Bus {
  const yielding = (options: SubscribeOptions): SubscribeOptions => {
    if (!BACKGROUND_GROUPS.some((pattern) => pattern.test(options.groupId))) return options;
    if (options.batchHandler) {
      const { batchHandler } = options;
      // A delivery of hundreds (a batch's completions) in units a single check waits behind briefly:
      // consecutive and in order, as the handler expects; offsets are committed after the last.
      return {
        ...options,
        batchHandler: async (messages) => {
          for (let start = 0; start < messages.length;) {
            const size = gate.highActive() ? BACKGROUND_UNIT : messages.length;
            const unit = messages.slice(start, start + size);
            start += unit.length;
            await gate.low(() => batchHandler(unit));
          }
        },
      };
    }
    const { handler } = options;
    return { ...options, handler: (message) => gate.low(() => handler(message)) };
  };
  return {
    durable: bus.durable,
    ensureTopics: (topics) => bus.ensureTopics(topics),
    publish: (topic, messages) => bus.publish(topic, messages),
    subscribe: (options) => bus.subscribe(yielding(options)),
    settled: () => bus.settled(),
    // Bound to the bus: the adapters' methods read their own state. The consumer_lag metric reads every
    // group through subscribedGroups and consumerLagByPartition; without them it has no series.
    ...(bus.consumerLag && { consumerLag: bus.consumerLag.bind(bus) }),
    ...(bus.subscribedGroups && { subscribedGroups: bus.subscribedGroups.bind(bus) }),
    ...(bus.consumerLagByPartition && {
      consumerLagByPartition: bus.consumerLagByPartition.bind(bus),
    }),
    close: () => bus.close(),
  };
}
