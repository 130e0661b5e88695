import type { Granularity, HolderType, MatchRatesReport, NameMatchOutcome } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import type { TimeWindow } from '../query-parameters.js';
import { periodSql } from '../usage/query.js';

export interface MatchRatesFilter extends TimeWindow {
  granularity: Granularity;
  participant?: string | undefined;
  holderType?: HolderType | undefined;
}

type Period = MatchRatesReport['totals'];
const OUTCOMES = ['MTCH', 'CMTC', 'NMTC', 'NOAP'] as const;

function emptyPeriod(): Period {
  return {
    total: 0,
    counts: { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0 },
    shares: { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0 },
  };
}

/** Shares of the period's answered verifications, rounded to four places. */
function withShares(period: Period): Period {
  for (const outcome of OUTCOMES)
    period.shares[outcome] =
      period.total === 0
        ? 0
        : Math.round((period.counts[outcome] / period.total) * 10_000) / 10_000;
  return period;
}

/**
 * Outcome counts and shares of the verifications requested in [from, to) that have an outcome.
 * `holderType` is the account's holder type as analytics knows it now (accounts sharing the IBAN's
 * pseudonym); NOAP answers for unknown IBANs have no holder type and drop out under that filter.
 */
export async function matchRatesReport(
  sql: SqlExecutor,
  schema: string,
  filter: MatchRatesFilter,
): Promise<MatchRatesReport> {
  const { rows } = await sql.query<{ period: string; outcome: NameMatchOutcome; count: string }>(
    `SELECT ${periodSql('$1')} AS period, v.outcome, count(*)::text AS count
       FROM ${schema}.verifications v
      WHERE v.requested_at >= $2 AND v.requested_at < $3 AND v.outcome IS NOT NULL
        AND ($4::text IS NULL OR v.participant = $4)
        AND ($5::text IS NULL OR EXISTS (
              SELECT 1 FROM ${schema}.accounts a WHERE a.iban_hash = v.iban_hash AND a.holder_type = $5))
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [
      filter.granularity,
      filter.from.toISOString(),
      filter.to.toISOString(),
      filter.participant ?? null,
      filter.holderType ?? null,
    ],
  );
  const periods: MatchRatesReport['periods'] = [];
  const totals = emptyPeriod();
  for (const row of rows) {
    let period = periods.at(-1);
    if (period?.period !== row.period) {
      period = { period: row.period, ...emptyPeriod() };
      periods.push(period);
    }
    const count = Number(row.count);
    period.counts[row.outcome] += count;
    period.total += count;
    totals.counts[row.outcome] += count;
    totals.total += count;
  }
  return {
    from: filter.from.toISOString(),
    to: filter.to.toISOString(),
    granularity: filter.granularity,
    periods: periods.map((period) => ({ ...withShares(period), period: period.period })),
    totals: withShares(totals),
  };
}
