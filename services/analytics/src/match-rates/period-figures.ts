import type { MatchRatesReport, NameMatchOutcome } from '@vop/contracts';

/** A count of verifications of one period, bank, outcome and responder failure. */
export interface MatchRatesRow {
  period: string;
  bank: string;
  outcome: NameMatchOutcome;
  responder_failure: string | null;
  count: string;
}

export type PeriodFigures = MatchRatesReport['totals'];
const OUTCOMES = ['MTCH', 'CMTC', 'NMTC', 'NOAP'] as const;

export function emptyPeriodFigures(): PeriodFigures {
  return {
    total: 0,
    counts: { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0 },
    shares: { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0 },
  };
}

export function countOutcome(figures: PeriodFigures, outcome: NameMatchOutcome, count: number) {
  figures.counts[outcome] += count;
  figures.total += count;
}

/** A part of a whole, rounded to four places; 0 of nothing is 0. */
export function shareOf(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

/** Shares of the period's answered verifications. */
export function withShares<Figures extends PeriodFigures>(figures: Figures): Figures {
  for (const outcome of OUTCOMES)
    figures.shares[outcome] = shareOf(figures.counts[outcome], figures.total);
  return figures;
}
