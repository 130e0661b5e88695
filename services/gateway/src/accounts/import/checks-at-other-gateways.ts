import { schemaMigration, type SqlExecutor } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Logger } from '@vop/observability';
import { periodicJob, type PeriodicJob } from '@vop/lifecycle';
import {
  WATCHED_QUANTILE,
  type ChecksElsewhere,
  type ChecksElsewhereReading,
  type SingleCheckTimes,
  slowdownOf,
} from './import-pacer.js';

/**
 * What every gateway of a deployment tells the others of its single checks, and which gateway is
 * importing. An import is paced by the checks' times (import-pacer.ts), and a gateway's priority gate
 * sees only its own checks: with the import at one gateway and the checks at another, the import ran
 * at full pace and the checks' p99 went from 36 ms to 920 ms (bench/RESULTS.md §5, "Checks at another
 * gateway"). The database is what the gateways share already; a row a gateway, written twice a second
 * while it serves checks, costs nothing idle.
 */
export const migrateCheckTimesOfGateways = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.gateway_check_times (
       instance_id text PRIMARY KEY,
       reported_at timestamptz NOT NULL,
       checks integer NOT NULL,
       watched_ms real NOT NULL,
       quiet_ms real,
       importing_until timestamptz
     )`,
]);

/** How often a gateway serving checks reports them, and an importing gateway reads the others'. */
export const REPORT_MS = 500;
/** A report older than this (the database's clock) is of checks that no longer come. */
const FRESH_MS = 1_500;
/** An importing gateway marks itself for this long each time it reads; the mark lapses if it dies. */
const IMPORTING_MARK_MS = 3_000;
/** Reports of fewer checks say too little of their times. */
const LEAST_REPORTED_CHECKS = 10;
/** A gateway's quiet time is the median of its last quiet reports (none ran while an import did). */
const QUIET_REPORTS_KEPT = 20;
const LEAST_QUIET_REPORTS = 4;
/** Rows of gateways that stopped reporting this long ago are deleted when a gateway starts. */
const FORGOTTEN_AFTER = '1 day';

/**
 * Reports this gateway's single checks every REPORT_MS while they come: how many ended, their time at
 * WATCHED_QUANTILE and the same when no import ran anywhere. The gate's own quiet time will not do
 * here: to a gateway that imports nothing, the checks an import elsewhere slows look quiet.
 */
export function reportCheckTimes(options: {
  sql: SqlExecutor;
  schema: string;
  instanceId: string;
  gate: SingleCheckTimes;
  logger: Logger;
}): PeriodicJob {
  const { sql, schema, instanceId, gate } = options;
  const quietReports: number[] = [];
  let since = gate.clock();
  let importingBefore = true;
  let forgotten = false;
  const job = periodicJob({
    intervalMs: REPORT_MS,
    // A database away is told once in a while, not twice a second (dependency-outage.ts).
    onError: loopFailureLog(options.logger, 'single-check times not reported; retrying'),
    run: async () => {
      if (!forgotten) {
        await sql.query(
          `DELETE FROM ${schema}.gateway_check_times WHERE reported_at < now() - $1::interval
             AND (importing_until IS NULL OR importing_until < now())`,
          [FORGOTTEN_AFTER],
        );
        forgotten = true;
      }
      const now = gate.clock();
      const times = gate.highTimesSince(since, WATCHED_QUANTILE);
      since = now;
      if (times.count === 0) return;
      const quietMs = quietReports.length >= LEAST_QUIET_REPORTS ? median(quietReports) : null;
      const { rows } = await sql.query<{ importing: boolean }>(
        `WITH reported AS (
           INSERT INTO ${schema}.gateway_check_times (instance_id, reported_at, checks, watched_ms, quiet_ms)
           VALUES ($1, now(), $2, $3, $4)
           ON CONFLICT (instance_id) DO UPDATE SET reported_at = now(), checks = $2, watched_ms = $3,
             quiet_ms = $4)
         SELECT EXISTS (SELECT 1 FROM ${schema}.gateway_check_times WHERE importing_until > now())
           AS importing`,
        [instanceId, times.count, times.quantile, quietMs],
      );
      const importing = rows[0]?.importing === true;
      // The window is quiet when no import ran at its start or at its end.
      if (!importing && !importingBefore) {
        quietReports.push(times.quantile);
        if (quietReports.length > QUIET_REPORTS_KEPT) quietReports.shift();
      }
      importingBefore = importing;
    },
  });
  return job;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * While an import runs here: marks this gateway as importing, and reads every REPORT_MS what the
 * other gateways reported of their checks (the import pacer's `elsewhere`).
 */
export class ChecksAtOtherGateways {
  constructor(
    private readonly options: {
      sql: SqlExecutor;
      schema: string;
      instanceId: string;
      logger: Logger;
    },
  ) {}

  /** Runs `work` (an import) with the other gateways' checks read beside it. */
  async watch<T>(work: (elsewhere: ChecksElsewhere) => Promise<T>): Promise<T> {
    const now = () => performance.now();
    let reading: (ChecksElsewhereReading & { at: number }) | undefined;
    let seq = 0;
    const readNow = async () => {
      const read = await this.read();
      seq += 1;
      reading = { seq, ...read, at: now() };
    };
    const notRead = loopFailureLog(
      this.options.logger,
      'other gateways’ single checks not read; the import is paced by its own',
    );
    const job = periodicJob({ intervalMs: REPORT_MS, onError: notRead, run: readNow });
    // Read at once: the import's first chunks are cut and paced by it, and the mark is set.
    await readNow().catch(notRead);
    job.start();
    const elsewhere: ChecksElsewhere = {
      // A reading not renewed (the database unreachable) says nothing of the checks now.
      latest: () => (reading !== undefined && now() - reading.at <= FRESH_MS ? reading : undefined),
    };
    try {
      return await work(elsewhere);
    } finally {
      await job.stop();
      await this.options.sql
        .query(
          `UPDATE ${this.options.schema}.gateway_check_times SET importing_until = NULL
            WHERE instance_id = $1`,
          [this.options.instanceId],
        )
        .catch(() => undefined);
    }
  }

  private async read(): Promise<Omit<ChecksElsewhereReading, 'seq'>> {
    const { sql, schema, instanceId } = this.options;
    // The main query reads the table as it was before the mark: the mark is this gateway's own row.
    const { rows } = await sql.query<{
      checks: number;
      watched_ms: number;
      quiet_ms: number | null;
    }>(
      `WITH marked AS (
         INSERT INTO ${schema}.gateway_check_times
           (instance_id, reported_at, checks, watched_ms, importing_until)
         VALUES ($1, '-infinity', 0, 0, now() + $2::interval)
         ON CONFLICT (instance_id) DO UPDATE SET importing_until = excluded.importing_until)
       SELECT checks, watched_ms, quiet_ms FROM ${schema}.gateway_check_times
        WHERE instance_id <> $1 AND reported_at > now() - $3::interval AND checks > 0`,
      [instanceId, `${IMPORTING_MARK_MS} milliseconds`, `${FRESH_MS} milliseconds`],
    );
    const told = rows.filter((row) => row.checks >= LEAST_REPORTED_CHECKS);
    const slowdowns = told.map((row) => slowdownOf(row.watched_ms, row.quiet_ms));
    return {
      active: rows.length > 0,
      ...(slowdowns.length > 0 && { slowdown: Math.max(...slowdowns) }),
    };
  }
}
