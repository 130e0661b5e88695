import {
  CHECKPOINT_DEFAULTS,
  checkpointDue,
  type CheckpointPolicy,
  type SqlExecutor,
  walSinceCheckpoint,
} from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import { periodicJob, type PeriodicJob } from '@vop/lifecycle';
import type { PriorityGate } from '@vop/messaging';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { upkeepRecorder } from './store-upkeep-metrics.js';

export interface StoreCheckpointsOptions {
  sql: SqlExecutor;
  /** The look and the checkpoint each run as one low-priority unit: single checks go first. */
  gate: PriorityGate;
  metrics: ServiceMetrics;
  logger: Logger;
  /** How often the WAL written since the last checkpoint is looked at. Default 10 s. */
  intervalMs?: number;
  policy?: CheckpointPolicy;
}

export interface StoreCheckpoints extends PeriodicJob {
  /** One look, and the checkpoint if one is due (the job's timer calls the same): whether it took one. */
  runOnce(): Promise<boolean>;
}

/**
 * An import of a million new accounts writes about 3.4 GB of WAL (bench/RESULTS.md §5): looked at this
 * often, the WAL passes the quiet threshold by a few hundred MB at most. The look is one small statement.
 */
const DEFAULT_INTERVAL_MS = 10_000;

/**
 * What PostgreSQL's checkpointer does for a server, for PGlite, which runs none: a standalone backend
 * takes a checkpoint only when it closes, so an embedded store's WAL was never recycled while it ran
 * (1 GB of it after 300,000 new accounts, a restart the only remedy) and a crash replayed all of it
 * (bench/RESULTS.md §5). An import does not put the checkpoint off: its WAL is what the checkpoint
 * bounds. Single checks do, up to `anyTimeBytes` (`packages/event-store/src/pglite-checkpoints.ts`).
 */
export function storeCheckpoints(options: StoreCheckpointsOptions): StoreCheckpoints {
  const { sql, gate, logger } = options;
  const policy = options.policy ?? CHECKPOINT_DEFAULTS;
  const recordUpkeep = upkeepRecorder(options.metrics);
  options.metrics.gauge({
    name: 'store_wal_since_checkpoint_bytes',
    help: 'WAL the embedded store wrote since its last checkpoint began: what a crash replays',
    collect: async (gauge) => gauge.set(await walSinceCheckpoint(sql)),
  });

  async function runOnce(): Promise<boolean> {
    const walBytes = await gate.low(() => walSinceCheckpoint(sql));
    if (!checkpointDue(walBytes, gate.highActive(), policy)) return false;
    const took = await gate.low(async () => {
      const started = performance.now();
      await sql.query('CHECKPOINT');
      return (performance.now() - started) / 1000;
    });
    recordUpkeep('checkpoint', took);
    logger.debug({ walBytes, seconds: took }, 'store checkpoint');
    return true;
  }

  const job = periodicJob({
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
    run: async () => {
      await runOnce();
    },
    onError: loopFailureLog(logger, 'the embedded store checkpoint failed; trying again'),
  });
  return { ...job, runOnce };
}
