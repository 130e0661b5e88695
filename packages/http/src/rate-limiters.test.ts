import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { createRateLimiters, type RateLimitDatabase } from './rate-limiters.js';

/** The embedded run's database: its limiters are in memory, so no statement reaches it. */
const embedded: RateLimitDatabase = {
  kind: 'pglite',
  query: () => Promise.reject(new Error('in-memory limiters run no statement')),
};

describe('createRateLimiters on PGlite', () => {
  it('given a budget, when its points are spent, then the next point is refused until the duration ends', async () => {
    const limiters = createRateLimiters({ sql: embedded, schema: 'gateway', table: 'rate_limits' });
    const budget = { keyPrefix: 'verify-2-60', points: 2, durationSeconds: 60 };

    await limiters.limiterFor(budget).consume('participant-a');
    await limiters.limiterFor(budget).consume('participant-a');
    const refusal: unknown = await limiters
      .limiterFor(budget)
      .consume('participant-a')
      .catch((rejection: unknown) => rejection);

    assert.ok(refusal instanceof RateLimiterRes);
    assert.ok(refusal.msBeforeNext > 0 && refusal.msBeforeNext <= 60_000);
    await limiters.limiterFor(budget).consume('participant-b');
  });

  it('given two budgets, then each keeps its own count, and one budget is one limiter', () => {
    const limiters = createRateLimiters({ sql: embedded, schema: 'batch', table: 'entry_budgets' });
    const small = { keyPrefix: 'entries-60', points: 60, durationSeconds: 3600 };
    const large = { keyPrefix: 'entries-600', points: 600, durationSeconds: 3600 };

    assert.equal(limiters.limiterFor(small), limiters.limiterFor(small));
    assert.notEqual(limiters.limiterFor(small), limiters.limiterFor(large));
    assert.equal(limiters.limiterFor(large).points, 600);
  });

  it('then there is no table to migrate', () => {
    const limiters = createRateLimiters({ sql: embedded, schema: 'gateway', table: 'rate_limits' });

    assert.deepEqual(limiters.migrations, []);
  });
});

describe('createRateLimiters on PostgreSQL', () => {
  it("then the shared table is created in the service's schema", () => {
    const shared: RateLimitDatabase = { ...embedded, kind: 'postgres' };
    const limiters = createRateLimiters({ sql: shared, schema: 'batch', table: 'entry_budgets' });

    assert.equal(limiters.migrations.length, 1);
    assert.match(
      limiters.migrations[0] ?? '',
      /CREATE TABLE IF NOT EXISTS batch\.entry_budgets \(/,
    );
  });
});
