import type { ServiceMetrics } from '@vop/observability';

/** From a few milliseconds (a copy written at commit is not observed) to a stalled consumer. */
const LAG_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2.5, 5, 10, 30, 60,
];

/**
 * `account_copy_lag_seconds{copy}`: for each account event a copy of the accounts applied from the
 * account events topic, the time from the event's write to the commit that put it in the copy. An
 * event the writer had already put in the copy at commit is not observed (it was not late there).
 * `copy` names the copy by its consumer group; no label carries an account.
 */
export function accountCopyLag(
  metrics: ServiceMetrics,
  copy: string,
  now: () => number = Date.now,
): (writtenAt: readonly string[]) => void {
  const histogram = metrics.histogram({
    name: 'account_copy_lag_seconds',
    help: 'Seconds from an account event being written to a copy of the accounts applying it from the topic',
    labelNames: ['copy'] as const,
    buckets: LAG_BUCKETS,
  });
  return (writtenAt) => {
    const at = now();
    for (const written of writtenAt)
      histogram.observe({ copy }, Math.max(0, (at - Date.parse(written)) / 1000));
  };
}
