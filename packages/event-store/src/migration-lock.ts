import type { SqlClient, SqlExecutor } from './types.js';

/**
 * Runs DDL for one schema under the transaction-scoped advisory lock the event store's own migration
 * takes: `CREATE … IF NOT EXISTS` races between processes starting together otherwise.
 */
export async function withMigrationLock(
  sql: SqlClient,
  schema: string,
  migrate: (tx: SqlExecutor) => Promise<void>,
): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `vop-event-store:migrate:${schema}`,
    ]);
    await migrate(tx);
  });
}

/** Creates the schema if needed and runs idempotent DDL statements in it, under the migration lock. */
export async function migrateSchema(
  sql: SqlClient,
  schema: string,
  statements: string[],
): Promise<void> {
  await withMigrationLock(sql, schema, async (tx) => {
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    for (const statement of statements) await tx.query(statement);
  });
}

/** A table's migration as data: its idempotent DDL for a schema, run by migrateSchema. */
export function schemaMigration(
  statementsFor: (schema: string) => string[],
): (sql: SqlClient, schema: string) => Promise<void> {
  return (sql, schema) => migrateSchema(sql, schema, statementsFor(schema));
}
