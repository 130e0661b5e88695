import type { ServiceMetrics } from '@vop/observability';

export type UpkeepAction = 'vacuum' | 'analyze' | 'checkpoint';

/**
 * Counts one statement of the embedded store's upkeep and how long it held PGlite's one backend, by
 * action: the vacuums and analyses of `store-upkeep.ts`, the checkpoints of `store-checkpoints.ts`.
 */
export function upkeepRecorder(
  metrics: ServiceMetrics,
): (action: UpkeepAction, seconds: number) => void {
  const runs = metrics.counter<'action'>({
    name: 'store_upkeep_total',
    help: 'Vacuums, analyses and checkpoints of the embedded store (PGlite runs no autovacuum or checkpointer)',
    labelNames: ['action'],
  });
  const durations = metrics.histogram<'action'>({
    name: 'store_upkeep_duration_seconds',
    help: 'How long one vacuum, analyse or checkpoint of the embedded store held its one backend',
    labelNames: ['action'],
    buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });
  return (action, seconds) => {
    runs.inc({ action });
    durations.observe({ action }, seconds);
  };
}
