import { withMigrationLock, type SqlClient } from '@vop/event-store';
import type { Logger } from '@vop/observability';
import type { RequestHandler } from 'express';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ApiError, loopFailureLog } from '@vop/http';
import { type Budget, type RateLimitSettings, budgetFor } from './rate-limit-policy.js';

const TABLE = 'rate_limits';

export interface RateLimits {
  /** Creates the shared table (PostgreSQL only); call once at start. */
  migrate(): Promise<void>;
  middleware: RequestHandler;
}

/** rate-limiter-flexible calls `query({text, values, name})`; names are dropped (PGlite and pools clash on them). */
function limiterClientOf(sql: SqlClient): {
  query(query: {
    text: string;
    values?: unknown[];
  }): Promise<{ rows: unknown[]; rowCount: number }>;
} {
  return { query: (query) => sql.query(query.text, query.values ?? []) };
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
  const shared = sql.kind === 'postgres';
  const limiters = new Map<string, RateLimiterAbstract>();

  function limiterFor(budget: Budget): RateLimiterAbstract {
    const keyPrefix = `${budget.bucket}-${budget.points}-${budget.durationSeconds}`;
    let limiter = limiters.get(keyPrefix);
    if (!limiter) {
      const common = { keyPrefix, points: budget.points, duration: budget.durationSeconds };
      limiter = shared
        ? new RateLimiterPostgres({
            ...common,
            storeClient: limiterClientOf(sql),
            storeType: 'pool',
            schemaName: schema,
            tableName: TABLE,
            tableCreated: true,
            clearExpiredByTimeout: false,
          })
        : new RateLimiterMemory(common);
      limiters.set(keyPrefix, limiter);
    }
    return limiter;
  }

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
      if (!shared) return;
      await withMigrationLock(sql, schema, async (tx) => {
        await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await tx.query(
          `CREATE TABLE IF NOT EXISTS ${schema}.${TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
        );
      });
    },
  };
}
