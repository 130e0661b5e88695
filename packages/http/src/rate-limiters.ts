import {
  RateLimiterMemory,
  RateLimiterPostgres,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

/** The database a service runs on: on PostgreSQL its instances share one table of budgets. */
export interface RateLimitDatabase {
  readonly kind: 'postgres' | 'pglite';
  query(text: string, params?: readonly unknown[]): Promise<{ rows: unknown[]; rowCount: number }>;
}

/** Points a key may spend per duration; limiters of budgets with the same prefix are one. */
export interface LimiterBudget {
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

export interface RateLimiters {
  /** The limiter of a budget, made at its first use. */
  limiterFor(budget: LimiterBudget): RateLimiterAbstract;
  /** The shared table's DDL (PostgreSQL), run by the caller under its migration lock; else none. */
  readonly migrations: string[];
}

/**
 * rate-limiter-flexible limiters: in one table of `schema` shared by every instance on PostgreSQL,
 * in memory on PGlite (the embedded run is one process).
 */
export function createRateLimiters(options: {
  sql: RateLimitDatabase;
  schema: string;
  table: string;
}): RateLimiters {
  const { sql, schema, table } = options;
  const shared = sql.kind === 'postgres';
  // The library calls `query({text, values, name})`; names are dropped (PGlite and pools clash on them).
  const storeClient = {
    query: (query: { text: string; values?: unknown[] }) =>
      sql.query(query.text, query.values ?? []),
  };
  const limiters = new Map<string, RateLimiterAbstract>();
  return {
    limiterFor({ keyPrefix, points, durationSeconds }) {
      let limiter = limiters.get(keyPrefix);
      if (!limiter) {
        const common = { keyPrefix, points, duration: durationSeconds };
        limiter = shared
          ? new RateLimiterPostgres({
              ...common,
              storeClient,
              storeType: 'pool',
              schemaName: schema,
              tableName: table,
              tableCreated: true,
              clearExpiredByTimeout: false,
            })
          : new RateLimiterMemory(common);
        limiters.set(keyPrefix, limiter);
      }
      return limiter;
    },
    migrations: shared
      ? [
          `CREATE TABLE IF NOT EXISTS ${schema}.${table} (
             key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
        ]
      : [],
  };
}
