import type { RespondingBankRates } from '@vop/contracts';
import {
  countOutcome,
  emptyPeriodFigures,
  shareOf,
  withShares,
  type MatchRatesRow,
} from './period-figures.js';
import { OWN_BANK } from './responding-bank.js';

type BankFigures = RespondingBankRates['totals'];

function emptyBankFigures(): BankFigures {
  return { ...emptyPeriodFigures(), unanswered: { total: 0, reasons: {} }, availability: 0 };
}

function count(figures: BankFigures, row: MatchRatesRow): void {
  const n = Number(row.count);
  if (row.responder_failure === null) return countOutcome(figures, row.outcome, n);
  figures.unanswered.total += n;
  figures.unanswered.reasons[row.responder_failure] =
    (figures.unanswered.reasons[row.responder_failure] ?? 0) + n;
}

/** A bank's match rate is about its answers; its availability about the checks it could not answer. */
function finished<Figures extends BankFigures>(figures: Figures): Figures {
  figures.availability = shareOf(figures.total, figures.total + figures.unanswered.total);
  return withShares(figures);
}

/** The counts of one match-rates query per responding bank: `own` first, then by BIC. */
export function byRespondingBank(rows: readonly MatchRatesRow[]): RespondingBankRates[] {
  const banks = new Map<string, { periods: Map<string, BankFigures>; totals: BankFigures }>();
  for (const row of rows) {
    let bank = banks.get(row.bank);
    if (bank === undefined) {
      bank = { periods: new Map(), totals: emptyBankFigures() };
      banks.set(row.bank, bank);
    }
    let period = bank.periods.get(row.period);
    if (period === undefined) {
      period = emptyBankFigures();
      bank.periods.set(row.period, period);
    }
    count(period, row);
    count(bank.totals, row);
  }
  const order = (bank: string) => (bank === OWN_BANK ? '' : bank);
  return [...banks.entries()]
    .sort(([a], [b]) => order(a).localeCompare(order(b)))
    .map(([bank, { periods, totals }]) => ({
      bank,
      periods: [...periods.entries()].map(([period, figures]) => ({
        period,
        ...finished(figures),
      })),
      totals: finished(totals),
    }));
}
