import type { Granularity, UsageOutcome, UsageReport, VerificationFamily } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { usageOutcomeSql } from '../activity/failure-rule.js';
import type { TimeWindow } from '../query-parameters.js';

export interface UsageFilter extends TimeWindow {
  granularity: Granularity;
  participant?: string | undefined;
  family?: VerificationFamily | undefined;
  now: Date;
}

/** Verification counts per period, family and outcome in [from, to), with totals and batches. */
export async function usageReport(
  sql: SqlExecutor,
  schema: string,
  filter: UsageFilter,
): Promise<UsageReport> {
  const { rows } = await sql.query<{
    period: string;
    family: VerificationFamily;
    outcome: UsageOutcome;
    count: string;
  }>(
    `SELECT ${periodSql('$1')} AS period, v.family,
            ${usageOutcomeSql('$4::timestamptz')} AS outcome, count(*)::text AS count
       FROM ${schema}.verifications v
      WHERE v.requested_at >= $2 AND v.requested_at < $3
        AND ($5::text IS NULL OR v.participant = $5) AND ($6::text IS NULL OR v.family = $6)
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    [
      filter.granularity,
      filter.from.toISOString(),
      filter.to.toISOString(),
      filter.now.toISOString(),
      filter.participant ?? null,
      filter.family ?? null,
    ],
  );
  const series: UsageReport['series'] = [];
  const totals: UsageReport['totals'] = { total: 0, byFamily: {}, byOutcome: {} };
  for (const row of rows) {
    const period = row.period;
    const count = Number(row.count);
    let bucket = series.at(-1);
    if (bucket?.period !== period) {
      bucket = { period, total: 0, counts: [] };
      series.push(bucket);
    }
    bucket.total += count;
    bucket.counts.push({ family: row.family, outcome: row.outcome, count });
    totals.total += count;
    totals.byFamily[row.family] = (totals.byFamily[row.family] ?? 0) + count;
    totals.byOutcome[row.outcome] = (totals.byOutcome[row.outcome] ?? 0) + count;
  }
  const batches = await sql.query<{ completed: string; entries: string }>(
    `SELECT count(*)::text AS completed, coalesce(sum(total), 0)::text AS entries
       FROM ${schema}.batches
      WHERE completed_at >= $1 AND completed_at < $2 AND ($3::text IS NULL OR participant = $3)`,
    [filter.from.toISOString(), filter.to.toISOString(), filter.participant ?? null],
  );
  return {
    from: filter.from.toISOString(),
    to: filter.to.toISOString(),
    granularity: filter.granularity,
    series,
    totals,
    batches: {
      completed: Number(batches.rows[0]?.completed ?? 0),
      entries: Number(batches.rows[0]?.entries ?? 0),
    },
  };
}

/** The UTC start of a request's bucket as ISO text (granularity bound to `parameter`). */
export function periodSql(parameter: string): string {
  return `to_char(date_trunc(${parameter}, v.requested_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`;
}
