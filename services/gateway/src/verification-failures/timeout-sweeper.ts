import type { EventStore, SqlExecutor } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Logger } from '@vop/observability';
import { periodicJob } from '@vop/lifecycle';
import { failVerification } from './fail-verification.js';

export interface VerificationFailureLimits {
  /** Scheme, EPC, immediate and account-number verifications: failed this long after the request. */
  synchronousMs: number;
  /** Request/result verifications (the caller fetches the result later). */
  deferredMs: number;
  /**
   * How often the job looks for overdue verifications after an append; while looks find nothing the
   * wait doubles up to `SLOWEST_SWEEP_MS` (an idle gateway), and the next append brings it back.
   */
  sweepIntervalMs: number;
}

export const DEFAULT_FAILURE_LIMITS: VerificationFailureLimits = {
  synchronousMs: 30_000,
  deferredMs: 20 * 60_000,
  sweepIntervalMs: 1_000,
};

const BATCH = 100;
/** An idle gateway's sweep: a verification recorded meanwhile appended, and so brought the sweep back. */
const SLOWEST_SWEEP_MS = 30_000;
const DEFERRED_FAMILIES = ['request-result', 'batch'];

/** Pending verifications past their family's limit, oldest first. */
export async function findOverdueVerifications(
  sql: SqlExecutor,
  schema: string,
  now: Date,
  limits: VerificationFailureLimits,
  limit: number,
): Promise<string[]> {
  const synchronousCutoff = new Date(now.getTime() - limits.synchronousMs);
  const deferredCutoff = new Date(now.getTime() - limits.deferredMs);
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id FROM ${schema}.verifications
      WHERE status = 'PENDING' AND requested_at <= greatest($1::timestamptz, $2::timestamptz)
        AND (family <> ALL($3::text[]) AND requested_at <= $1::timestamptz
             OR family = ANY($3::text[]) AND requested_at <= $2::timestamptz)
      ORDER BY requested_at LIMIT $4`,
    [
      synchronousCutoff.toISOString(),
      deferredCutoff.toISOString(),
      `{${DEFERRED_FAMILIES.join(',')}}`,
      limit,
    ],
  );
  return rows.map((row) => row.id);
}

export interface TimeoutSweeper {
  /** Fails every overdue verification now; returns how many failures it appended. */
  sweep(): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The job that ends verifications matching never answered (TIMEOUT). Several gateway instances may
 * sweep at once: the stream's version lets one failure in. A failure appended but not yet read back
 * from the topic keeps its row PENDING; the decider refuses it a second time.
 */
export function createTimeoutSweeper(options: {
  store: EventStore;
  limits: VerificationFailureLimits;
  logger: Logger;
  clock: () => Date;
}): TimeoutSweeper {
  const { store, limits, logger, clock } = options;
  async function sweep(): Promise<number> {
    const overdue = await findOverdueVerifications(store.sql, store.schema, clock(), limits, BATCH);
    let failed = 0;
    for (const verificationId of overdue) {
      const appended = await failVerification(store, {
        verificationId,
        reason: 'TIMEOUT',
        failedAt: clock().toISOString(),
      });
      if (appended) failed++;
    }
    return failed;
  }

  const job = periodicJob({
    intervalMs: limits.sweepIntervalMs,
    slowestIntervalMs: SLOWEST_SWEEP_MS,
    run: async () => {
      const failed = await sweep();
      if (failed > 0) logger.warn({ failed }, 'verifications without an outcome ended as failed');
      return failed > 0;
    },
    onError: loopFailureLog(logger, 'verification timeout sweep failed; retrying at the next tick'),
  });
  let stopListening: (() => Promise<void>) | undefined;

  return {
    sweep,
    async start() {
      // Every recorded verification is an append: the sweep looks again soon after one.
      stopListening = await store.onAppend(() => job.hurry());
      job.start();
    },
    async stop() {
      await stopListening?.();
      stopListening = undefined;
      await job.stop();
    },
  };
}
