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

/**
 * Why the payee's bank could not answer a routed check (the requesting side, docs/api.md "Payees at
 * other banks"): not found (no bank for the IBAN, no participant for the BIC), no usable endpoint,
 * unreachable, a TLS failure, an error status, an answer that breaks the EPC contract, no answer in
 * time, or our own budget for that bank spent (its breaker open, too many calls in flight).
 */
export const RESPONDER_FAILURE_REASONS = [
  'RESPONDER_UNKNOWN',
  'RESPONDER_NO_ENDPOINT',
  'RESPONDER_UNAVAILABLE',
  'RESPONDER_TLS_FAILURE',
  'RESPONDER_ERROR',
  'RESPONDER_INVALID_ANSWER',
  'RESPONDER_TIMEOUT',
  'RESPONDER_BUSY',
] as const;
export type ResponderFailureReason = (typeof RESPONDER_FAILURE_REASONS)[number];

const RESPONDER_FAILURES: ReadonlySet<string> = new Set(RESPONDER_FAILURE_REASONS);

/** The reason a routed check ended without an answer from the payee's bank, if it did. */
export function responderFailureOf(reasons: readonly string[]): ResponderFailureReason | undefined {
  return reasons.find((reason): reason is ResponderFailureReason => RESPONDER_FAILURES.has(reason));
}

/** The reason a family shows beside NOAP: the payee's bank's failure, or "no such account". */
export function noapReasonOf(reasons: readonly string[]): string {
  return responderFailureOf(reasons) ?? NOAP_REASON;
}

/** HIGH ≥ 0.9, MEDIUM ≥ 0.7, else LOW. */
export function confidenceWord(score: number): 'HIGH' | 'MEDIUM' | 'LOW' {
  if (score >= 0.9) return 'HIGH';
  if (score >= 0.7) return 'MEDIUM';
  return 'LOW';
}
