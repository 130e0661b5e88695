import type { MatcherThresholds, MatchOutcome, OutcomeThresholds } from './types.js';

/**
 * Each tolerated difference multiplies the score by its factor. With the default thresholds one factor
 * below 0.9 makes a close match, and three of them (or two strong ones) a no-match.
 */
export const FACTORS = {
  cosmetic: 0.99,
  transliteration: 0.97,
  spellingVariant: 0.88,
  typoOneEdit: 0.86,
  typoTwoEdits: 0.76,
  nickname: 0.86,
  initial: 0.84,
  wordOrder: 0.85,
  middleNameMissing: 0.86,
  particleMissing: 0.88,
  extraName: 0.84,
  legalFormMissing: 0.85,
  legalFormAdded: 0.85,
  acronym: 0.86,
  tradeName: 0.86,
  truncatedAtWord: 0.95,
  truncatedInWord: 0.86,
} as const;

export const DEFAULT_THRESHOLDS: MatcherThresholds = {
  person: { match: 0.9, closeMatch: 0.7 },
  organisation: { match: 0.9, closeMatch: 0.7 },
};

export function outcomeFor(score: number, thresholds: OutcomeThresholds): MatchOutcome {
  if (score >= thresholds.match) return 'MTCH';
  if (score >= thresholds.closeMatch) return 'CMTC';
  return 'NMTC';
}

export const OUTCOME_RANK: Readonly<Record<MatchOutcome, number>> = { MTCH: 2, CMTC: 1, NMTC: 0 };

/** Score of a rule-based no-match: below the close-match threshold, higher when more words agreed. */
export function noMatchScore(agreement: number, thresholds: OutcomeThresholds): number {
  const ceiling = Math.max(0, thresholds.closeMatch - 0.01);
  return Math.min(ceiling, Math.max(0, agreement) * 0.6);
}

export function roundScore(score: number): number {
  return Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000;
}
