import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextAttemptAt, retryAfterMs, type RetryPolicy } from './schedule.js';

const HOUR = 3_600_000;
const defaultPolicy: RetryPolicy = {
  delaysMs: [5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  jitter: 0.2,
  maxRetryAfterMs: 10 * HOUR,
};
const now = new Date('2026-01-01T00:00:00.000Z');
const waitAfter = (attemptsMade: number, random = 0.5, retryAfter?: number) =>
  (nextAttemptAt({
    attemptsMade,
    now,
    policy: defaultPolicy,
    random,
    retryAfterMs: retryAfter,
  })?.getTime() ?? NaN) - now.getTime();

describe('the retry schedule', () => {
  it('grows with each failed attempt and spans about a day before the last attempt', () => {
    const waits = defaultPolicy.delaysMs.map((_, index) => waitAfter(index + 1));
    assert.deepEqual(waits, [...defaultPolicy.delaysMs]);
    const total = waits.reduce((sum, wait) => sum + wait, 0);
    assert.ok(total > 24 * HOUR && total < 30 * HOUR, `${total / HOUR} h`);
  });

  it('jitters each wait by at most ±20 %', () => {
    assert.equal(waitAfter(2, 0), 240_000);
    assert.equal(waitAfter(2, 0.999_999), 360_000);
  });

  it('after the last attempt there is none: the delivery is dead-lettered', () => {
    assert.equal(nextAttemptAt({ attemptsMade: 8, now, policy: defaultPolicy, random: 0.5 }), null);
  });

  it('honours Retry-After as a lower bound, up to a cap', () => {
    assert.equal(waitAfter(1, 0.5, 60_000), 60_000);
    assert.equal(waitAfter(3, 0.5, 60_000), 1_800_000);
    assert.equal(waitAfter(1, 0.5, 100 * HOUR), 10 * HOUR);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(undefined, now), undefined);
  });
});
