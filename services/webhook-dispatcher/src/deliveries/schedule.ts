/** When to try a failed delivery again (design §4: exponential backoff with jitter over about a day). */
export interface RetryPolicy {
  /** Wait before retry n (n from 1); one attempt more than listed (VOP_WEBHOOK_RETRY_SCHEDULE_MS). */
  delaysMs: readonly number[];
  /** Each wait is spread by ± this fraction, so receivers coming back are not hit all at once. */
  jitter: number;
  /** A receiver's Retry-After is honoured up to this long (a day's schedule is not stretched by it). */
  maxRetryAfterMs: number;
}

/**
 * Pure: the time of the next attempt after `attemptsMade` failed ones, or null when that was the
 * last (the delivery is dead-lettered). A receiver's Retry-After is honoured as a lower bound,
 * up to `maxRetryAfterMs`.
 */
export function nextAttemptAt(input: {
  attemptsMade: number;
  now: Date;
  policy: RetryPolicy;
  /** In [0, 1). */
  random: number;
  retryAfterMs?: number | undefined;
}): Date | null {
  const { attemptsMade, now, policy } = input;
  const base = policy.delaysMs[attemptsMade - 1];
  if (base === undefined) return null;
  const jittered = base * (1 + policy.jitter * (2 * input.random - 1));
  const wait = Math.max(jittered, Math.min(input.retryAfterMs ?? 0, policy.maxRetryAfterMs));
  return new Date(now.getTime() + Math.round(wait));
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: Date): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}
