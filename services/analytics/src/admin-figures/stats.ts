import type { StatsPeriod } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { failedSql } from '../activity/failure-rule.js';

const HOUR_MS = 3_600_000;

/** Where a period starts: today from UTC midnight; hour, week and month as the last 1 h, 7 d, 30 d. */
export function periodStart(period: StatsPeriod, now: Date): Date {
  switch (period) {
    case 'today':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    case 'hour':
      return new Date(now.getTime() - HOUR_MS);
    case 'week':
      return new Date(now.getTime() - 7 * 24 * HOUR_MS);
    case 'month':
      return new Date(now.getTime() - 30 * 24 * HOUR_MS);
  }
}

export interface RequestFigures {
  total: number;
  successful: number;
  failed: number;
  /** Mean request-to-outcome time of the successful ones, ms; null when there are none. */
  averageResponseMs: number | null;
}

/** Single checks (every family but batch) or batch entries: their response times differ by orders of magnitude. */
export type RequestKind = 'single' | 'batch';

/**
 * Verifications of one kind requested in the period: successful = an outcome within the family's limit (any
 * outcome, no-match included); failed = none within it (design §4); the rest are still in flight.
 */
export async function requestFigures(
  sql: SqlExecutor,
  schema: string,
  window: { from: Date; now: Date },
  kind: RequestKind = 'single',
): Promise<RequestFigures> {
  const { rows } = await sql.query<{
    total: string;
    failed: string;
    successful: string;
    average: string | null;
  }>(
    `SELECT count(*)::text AS total,
            count(*) FILTER (WHERE ${failedSql('$2::timestamptz')})::text AS failed,
            count(*) FILTER (WHERE v.outcome IS NOT NULL AND NOT ${failedSql('$2::timestamptz')})::text AS successful,
            (avg(v.response_ms) FILTER (WHERE v.outcome IS NOT NULL AND NOT ${failedSql('$2::timestamptz')}))::text AS average
       FROM ${schema}.verifications v
      WHERE v.requested_at >= $1 AND v.requested_at <= $2
        AND (v.family = 'batch') = $3`,
    [window.from.toISOString(), window.now.toISOString(), kind === 'batch'],
  );
  const row = rows[0];
  return {
    total: Number(row?.total ?? 0),
    successful: Number(row?.successful ?? 0),
    failed: Number(row?.failed ?? 0),
    averageResponseMs: row?.average == null ? null : Math.round(Number(row.average)),
  };
}
