import { migrateSchema, type SqlClient } from '@vop/event-store';
import type { Logger } from '@vop/observability';
import type { RequestHandler } from 'express';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError, createRateLimiters, loopFailureLog } from '@vop/http';
import { type Budget, type RateLimitSettings, budgetFor } from './rate-limit-policy.js';

const TABLE = 'rate_limits';

export interface RateLimits {
  /** Creates the shared table (PostgreSQL only); call once at start. */
  migrate(): Promise<void>;
  middleware: RequestHandler;
}

/**
 * Per-credential budgets with rate-limiter-flexible: in PostgreSQL (one table shared by every gateway
 * instance) in distributed mode, in memory in the embedded run. Over budget: 429 RATE_LIMIT_EXCEEDED with
 * Retry-After. A store failure lets the request through (logged): availability over strictness.
 */
export function createRateLimits(options: {
  sql: SqlClient;
  schema: string;
  settings: RateLimitSettings;
  logger: Logger;
}): RateLimits {
  const { sql, schema, settings, logger } = options;
  // Per request while the database is down would be a line per request: an outage is one line a while.
  const storeFailed = loopFailureLog(logger, 'rate limit store failed; requests let through');
  const limiters = createRateLimiters({ sql, schema, table: TABLE });
  const limiterFor = (budget: Budget): RateLimiterAbstract =>
    limiters.limiterFor({
      keyPrefix: `${budget.bucket}-${budget.points}-${budget.durationSeconds}`,
      points: budget.points,
      durationSeconds: budget.durationSeconds,
    });

  const middleware: RequestHandler = (req, res, next) => {
    const budget = budgetFor(req, res, settings);
    if (!budget) return next();
    limiterFor(budget)
      .consume(budget.subject)
      .then(() => next())
      .catch((rejection: unknown) => {
        if (rejection instanceof RateLimiterRes) {
          const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
          return next(
            new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests; retry later', {
              retryAfterSeconds,
            }),
          );
        }
        storeFailed(rejection);
        next();
      });
  };

  return {
    middleware,
    async migrate() {
      if (limiters.migrations.length > 0) await migrateSchema(sql, schema, limiters.migrations);
    },
  };
}
