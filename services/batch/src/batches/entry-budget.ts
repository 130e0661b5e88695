import { migrateSchema, type SqlClient } from '@vop/event-store';
import { ApiError, createRateLimiters } from '@vop/http';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

const TABLE = 'entry_budgets';
const HOUR_SECONDS = 3600;

export interface EntryBudgetSettings {
  environment: 'test' | 'live';
  /** VOP_RATE_LIMITS: live verifications per participant per minute; `default` for the others. */
  livePerMinute: Record<string, number>;
  /** VOP_TEST_RATE_LIMITS: the same in a test deployment; absent, the live limits apply there too. */
  testPerMinute?: Record<string, number>;
}

/**
 * Batch entries count against the participant's verification budget (per minute: VOP_RATE_LIMITS in
 * live deployments, VOP_TEST_RATE_LIMITS in test ones) spread over an hour: a participant allowed N
 * checks a minute submits up to 60 × N batch entries an hour. Drawn here, not at the gateway, because
 * only the batch service knows a streamed submission's size before it records it.
 */
export interface EntryBudget {
  migrate(): Promise<void>;
  /** Draws `entries` points, or throws 429 RATE_LIMIT_EXCEEDED with Retry-After (nothing drawn). */
  draw(participant: string, entries: number): Promise<void>;
  /** Gives back what a submission drew when it was not recorded after all. */
  refund(participant: string, entries: number): Promise<void>;
}

function exceeded(perHour: number, msBeforeNext: number): ApiError {
  return new ApiError(
    429,
    'RATE_LIMIT_EXCEEDED',
    `The batch has more entries than remain of the participant's ${perHour} batch entries an hour`,
    {
      retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
      action: 'Retry after the time given, or submit fewer entries',
    },
  );
}

/** The budget of the deployment's environment; a participant no limit names is not held to one. */
export function createEntryBudget(options: {
  sql: SqlClient;
  schema: string;
  settings: EntryBudgetSettings;
}): EntryBudget {
  const { sql, schema, settings } = options;
  const perMinute =
    settings.environment === 'live'
      ? settings.livePerMinute
      : (settings.testPerMinute ?? settings.livePerMinute);
  const limiters = createRateLimiters({ sql, schema, table: TABLE });
  const perHourOf = (participant: string): number | undefined => {
    const limit = perMinute[participant] ?? perMinute.default;
    return limit === undefined ? undefined : limit * 60;
  };
  // One table shared by every batch instance (PostgreSQL); in memory in the embedded run.
  const limiterFor = (points: number): RateLimiterAbstract =>
    limiters.limiterFor({ keyPrefix: `entries-${points}`, points, durationSeconds: HOUR_SECONDS });
  return {
    async migrate() {
      if (limiters.migrations.length > 0) await migrateSchema(sql, schema, limiters.migrations);
    },
    async draw(participant, entries) {
      const perHour = perHourOf(participant);
      if (perHour === undefined) return;
      const limiter = limiterFor(perHour);
      // A refused batch draws nothing: consume alone would count the refused points too.
      const current = await limiter.get(participant);
      if (current && current.consumedPoints + entries > perHour)
        throw exceeded(perHour, current.msBeforeNext);
      if (entries > perHour) throw exceeded(perHour, HOUR_SECONDS * 1000);
      try {
        await limiter.consume(participant, entries);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        // A concurrent submission drew first: give back what this one added, and refuse it.
        await limiter.reward(participant, entries);
        throw exceeded(perHour, rejection.msBeforeNext);
      }
    },
    async refund(participant, entries) {
      const perHour = perHourOf(participant);
      if (perHour !== undefined) await limiterFor(perHour).reward(participant, entries);
    },
  };
}
