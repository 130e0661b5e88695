import {
  AUTOVACUUM_DEFAULTS,
  oldestTransactionIdAge,
  readTableActivity,
  type SqlExecutor,
  upkeepDue,
  type UpkeepPolicy,
  upkeepStatement,
  type UpkeepStep,
} from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import { periodicJob, type PeriodicJob } from '@vop/lifecycle';
import type { PriorityGate } from '@vop/messaging';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { upkeepRecorder } from './store-upkeep-metrics.js';

export interface StoreUpkeepOptions {
  sql: SqlExecutor;
  /** Each statement runs as one low-priority unit: single checks go first. */
  gate: PriorityGate;
  metrics: ServiceMetrics;
  logger: Logger;
  /** How often the tables' counts are looked at. Default 5 minutes. */
  intervalMs?: number;
  /**
   * The longest a due table waits for a moment without single checks (the gate's active window) and
   * without an import (the gate's background work) before it is vacuumed among them. Default 10 minutes.
   */
  maxDeferMs?: number;
  policy?: UpkeepPolicy;
  /** ms; default Date.now. */
  now?: () => number;
}

export interface StoreUpkeep extends PeriodicJob {
  /** One look at the tables, and the steps run (the job's timer calls the same). */
  runOnce(): Promise<UpkeepStep[]>;
}

/**
 * Autovacuum looks every minute; here the look itself holds PGlite's one backend for 50-100 ms on a
 * store of 100,000 accounts (bench/RESULTS.md §5, "the embedded store's upkeep"), and a table's
 * threshold is a fifth of its rows, so a few minutes more before a vacuum cost nothing.
 */
const DEFAULT_INTERVAL_MS = 5 * 60_000;
const DEFAULT_MAX_DEFER_MS = 10 * 60_000;

/**
 * Autovacuum's rule but for analyses: once a table's changed rows reach its rows (it doubled), not a
 * tenth. An analyse samples 30,000 rows whatever the table's size, and on PGlite's one backend it held
 * every check: 0.8-2.2 s for the events of 240,000 checks (their jsonb documents). The planner scales a
 * table's last row count by its pages now, so an append-only table's estimates keep up between analyses
 * (bench/RESULTS.md §5, "the embedded store's upkeep").
 */
export const EMBEDDED_UPKEEP_POLICY: UpkeepPolicy = {
  ...AUTOVACUUM_DEFAULTS,
  analyzeScaleFactor: 1,
};

/**
 * What autovacuum does for a PostgreSQL server, for PGlite, which runs none: without it an embedded
 * store's updated tables only grew (their dead rows never reclaimed), no table had statistics, and its
 * transaction ids would reach wraparound, where PostgreSQL stops writing. Every `intervalMs` the tables'
 * counts are read and each due table (`upkeepDue`, autovacuum's rule) vacuumed or analysed, one
 * statement at a time. On PGlite's one backend a statement holds every other one, and the events of
 * 100,000 accounts took 1.4 s at their first vacuum (bench/RESULTS.md §5, "the embedded store's upkeep"),
 * so a due table waits for a second without single checks, up to `maxDeferMs`. It waits for an import
 * to end too: a vacuum in the middle of one held its every chunk (the first vacuum after a start of a
 * million accounts' tables, bench/RESULTS.md §5, "the store's upkeep inside the nightly file"), and one
 * after it covers all its rows at once.
 */
export function storeUpkeep(options: StoreUpkeepOptions): StoreUpkeep {
  const { sql, gate, logger } = options;
  const now = options.now ?? Date.now;
  const policy = options.policy ?? EMBEDDED_UPKEEP_POLICY;
  const maxDeferMs = options.maxDeferMs ?? DEFAULT_MAX_DEFER_MS;
  /** Tables vacuumed since the process started: the others' counts of the run before are gone. */
  const vacuumedSinceStart = new Set<string>();
  /** When each table waiting for a quiet moment was first found due. */
  const dueSince = new Map<string, number>();
  const recordUpkeep = upkeepRecorder(options.metrics);
  options.metrics.gauge({
    name: 'store_transaction_id_age',
    help: 'Transactions since the oldest unfrozen one of any database (writes stop near 2^31)',
    collect: async (gauge) => gauge.set(await oldestTransactionIdAge(sql)),
  });

  async function runOnce(): Promise<UpkeepStep[]> {
    const tables = await gate.low(() => readTableActivity(sql));
    const due = upkeepDue(tables, policy, (table) => !vacuumedSinceStart.has(table));
    const dueNow = new Set(due.map((step) => step.table));
    for (const table of dueSince.keys()) if (!dueNow.has(table)) dueSince.delete(table);
    const ran: UpkeepStep[] = [];
    for (const step of due) {
      const since = dueSince.get(step.table) ?? now();
      dueSince.set(step.table, since);
      const busy = gate.highActive() || gate.backgroundActive();
      if (busy && now() - since < maxDeferMs) continue;
      const action = step.vacuum ? 'vacuum' : 'analyze';
      const took = await gate.low(async () => {
        const started = performance.now();
        await sql.query(upkeepStatement(step));
        return (performance.now() - started) / 1000;
      });
      recordUpkeep(action, took);
      dueSince.delete(step.table);
      if (step.vacuum) vacuumedSinceStart.add(step.table);
      logger.debug(
        { table: step.table, reason: step.reason, action, seconds: took },
        'store upkeep',
      );
      ran.push(step);
    }
    return ran;
  }

  const job = periodicJob({
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
    run: async () => {
      await runOnce();
    },
    onError: loopFailureLog(logger, 'the embedded store upkeep failed; trying again'),
  });
  return { ...job, runOnce };
}
