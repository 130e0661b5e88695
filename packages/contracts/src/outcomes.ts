import type { NameMatchOutcome } from './events/verifications.js';

/**
 * One internal outcome, one word per family (the outcome table of docs/api.md). NOAP answers NO_MATCH with a reason where the
 * family has no word of its own for it.
 */
export const outcomeTable = {
  MTCH: {
    requestResult: 'MATCH',
    immediate: true,
    simple: 'MATCH',
    accountNumber: 'FULL',
    batch: 'MATCH',
  },
  CMTC: {
    requestResult: 'PARTIAL',
    immediate: false,
    simple: 'PARTIAL_MATCH',
    accountNumber: 'PARTIAL',
    batch: 'PARTIAL_MATCH',
  },
  NMTC: {
    requestResult: 'NO_MATCH',
    immediate: false,
    simple: 'NO_MATCH',
    accountNumber: 'NONE',
    batch: 'NO_MATCH',
  },
  NOAP: {
    requestResult: 'NO_MATCH',
    immediate: false,
    simple: 'ERROR',
    accountNumber: 'NONE',
    batch: 'NO_MATCH',
  },
} as const satisfies Record<
  NameMatchOutcome,
  {
    requestResult: string;
    immediate: boolean;
    simple: string;
    accountNumber: string;
    batch: string;
  }
>;

export const NOAP_REASON = 'ACCOUNT_NOT_FOUND_OR_CLOSED';

/** HIGH ≥ 0.9, MEDIUM ≥ 0.7, else LOW. */
export function confidenceWord(score: number): 'HIGH' | 'MEDIUM' | 'LOW' {
  if (score >= 0.9) return 'HIGH';
  if (score >= 0.7) return 'MEDIUM';
  return 'LOW';
}
