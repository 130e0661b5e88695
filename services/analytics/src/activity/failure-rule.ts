import type { VerificationFamily } from '@vop/contracts';

/**
 * Design §4: "failed" means could not be completed (as `verification.failure`), never a no-match.
 * A verification is failed when it ended with VerificationFailed, or when no outcome arrived within
 * its family's limit (so one still pending is counted before the gateway's sweeper fails it): the specification's
 * 3 s timeout for the synchronous families, the longest batch processing time (20 min) for the
 * asynchronous ones (request/result and batch entries), whose callers fetch the result later.
 */
export const SYNCHRONOUS_LIMIT_MS = 3_000;
export const ASYNCHRONOUS_LIMIT_MS = 20 * 60_000;
const ASYNCHRONOUS: readonly VerificationFamily[] = ['request-result', 'batch'];

export function completionLimitMs(family: VerificationFamily): number {
  return ASYNCHRONOUS.includes(family) ? ASYNCHRONOUS_LIMIT_MS : SYNCHRONOUS_LIMIT_MS;
}

/** The same rule in SQL over the activity table `v`, as of the instant bound to `$now`. */
export function limitSql(): string {
  return `(CASE WHEN v.family IN ('request-result', 'batch') THEN ${ASYNCHRONOUS_LIMIT_MS} ELSE ${SYNCHRONOUS_LIMIT_MS} END)`;
}

/** SQL: the verification has (so far) no outcome within its limit; `now` is a placeholder like `$2`. */
export function failedSql(now: string): string {
  const limit = `${limitSql()} * interval '1 millisecond'`;
  return `(v.failure_reason IS NOT NULL
           OR v.outcome IS NULL AND v.requested_at + ${limit} <= ${now}
           OR v.outcome IS NOT NULL AND v.response_ms > ${limitSql()})`;
}

/** SQL: the outcome a verification counts under: its outcome, else FAILED past its limit, else PENDING. */
export function usageOutcomeSql(now: string): string {
  const limit = `${limitSql()} * interval '1 millisecond'`;
  return `(CASE WHEN v.failure_reason IS NOT NULL THEN 'FAILED'
                WHEN v.outcome IS NOT NULL THEN v.outcome
                WHEN v.requested_at + ${limit} <= ${now} THEN 'FAILED' ELSE 'PENDING' END)`;
}
