import type { Granularity, HolderType, MatchRatesReport } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import type { TimeWindow } from '../query-parameters.js';
import { periodSql } from '../usage/query.js';
import { byRespondingBank } from './by-responding-bank.js';
import {
  countOutcome,
  emptyPeriodFigures,
  withShares,
  type MatchRatesRow,
} from './period-figures.js';
import { respondingBankSql } from './responding-bank.js';

export interface MatchRatesFilter extends TimeWindow {
  granularity: Granularity;
  participant?: string | undefined;
  holderType?: HolderType | undefined;
  /** Also the figures per responding bank (`by=responding_bank`). */
  byRespondingBank?: boolean | undefined;
}

/**
 * Outcome counts and shares of the verifications requested in [from, to) that have an outcome, as their
 * callers were answered (a check another bank could not answer counts as the NOAP it was).
 * `holderType` is the account's holder type as analytics knows it now (accounts sharing the IBAN's
 * pseudonym); NOAP answers for unknown IBANs (and checks sent to other banks) drop out under it.
 */
export async function matchRatesReport(
  sql: SqlExecutor,
  schema: string,
  filter: MatchRatesFilter,
): Promise<MatchRatesReport> {
  const { rows } = await sql.query<MatchRatesRow>(
    `SELECT ${periodSql('$1')} AS period, ${respondingBankSql()} AS bank, v.outcome, v.responder_failure,
            count(*)::text AS count
       FROM ${schema}.verifications v
      WHERE v.requested_at >= $2 AND v.requested_at < $3 AND v.outcome IS NOT NULL
        AND ($4::text IS NULL OR v.participant = $4)
        AND ($5::text IS NULL OR EXISTS (
              SELECT 1 FROM ${schema}.accounts a WHERE a.iban_hash = v.iban_hash AND a.holder_type = $5))
      GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    [
      filter.granularity,
      filter.from.toISOString(),
      filter.to.toISOString(),
      filter.participant ?? null,
      filter.holderType ?? null,
    ],
  );
  const periods: MatchRatesReport['periods'] = [];
  const totals = emptyPeriodFigures();
  for (const row of rows) {
    let period = periods.at(-1);
    if (period?.period !== row.period) {
      period = { period: row.period, ...emptyPeriodFigures() };
      periods.push(period);
    }
    countOutcome(period, row.outcome, Number(row.count));
    countOutcome(totals, row.outcome, Number(row.count));
  }
  return {
    from: filter.from.toISOString(),
    to: filter.to.toISOString(),
    granularity: filter.granularity,
    periods: periods.map(withShares),
    totals: withShares(totals),
    ...(filter.byRespondingBank === true && { byRespondingBank: byRespondingBank(rows) }),
  };
}
