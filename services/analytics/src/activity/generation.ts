import { schemaMigration, type SqlClient } from '@vop/event-store';
import { ANALYTICS_TABLES } from './projection.js';

/** The name the analytics projections' handler failures are logged under. */
export const PROJECTION_CONSUMER = 'analytics-projections';

/**
 * Rebuilds start a new generation: the read models are emptied and the consumer group gets a new
 * name, which Kafka has no offsets for, so the next start reads every topic from offset 0.
 */
export const migrateGeneration = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.projection_generation (
         id boolean PRIMARY KEY DEFAULT true CHECK (id),
         generation integer NOT NULL,
         rebuilt_at timestamptz
       )`,
  `INSERT INTO ${schema}.projection_generation (id, generation) VALUES (true, 1) ON CONFLICT DO NOTHING`,
]);

export async function currentGeneration(sql: SqlClient, schema: string): Promise<number> {
  const { rows } = await sql.query<{ generation: number }>(
    `SELECT generation FROM ${schema}.projection_generation`,
  );
  return rows[0]?.generation ?? 1;
}

export function projectionGroupId(namespace: string, generation: number): string {
  return `${namespace}analytics-projections-g${generation}`;
}

/** Empties the read models and starts the next generation, in one transaction; returns it. */
export async function startNewGeneration(sql: SqlClient, schema: string): Promise<number> {
  return sql.transaction(async (tx) => {
    for (const table of ANALYTICS_TABLES) await tx.query(`DELETE FROM ${schema}.${table}`);
    const { rows } = await tx.query<{ generation: number }>(
      `UPDATE ${schema}.projection_generation SET generation = generation + 1, rebuilt_at = now()
       RETURNING generation`,
    );
    return rows[0]?.generation ?? 1;
  });
}
