import { createPostgresClient, type SqlExecutor } from '@vop/event-store';

/** What a table holds, for disk per million accounts: events, read models, keys, or anything else. */
export type DiskKind = 'events' | 'read models' | 'keys' | 'other';

export interface TableDisk {
  database: string;
  table: string;
  kind: DiskKind;
  /** pg_total_relation_size: the heap, its TOAST and every index. */
  bytes: number;
}

/**
 * By table name, wherever the schema: `messages` is the event store (packages/event-store/src/schema-sql.ts),
 * `accounts` a read model of the accounts or a copy of them (services/gateway/src/accounts/read-model.ts,
 * packages/verifications/src/deciding/account-projection.ts), `subject_keys` the holders' keys
 * (packages/personal-data/src/subject-key-store.ts).
 */
export function diskKind(table: string): DiskKind {
  if (table === 'messages') return 'events';
  if (table === 'accounts') return 'read models';
  if (table === 'subject_keys') return 'keys';
  return 'other';
}

/** Every table of the database `sql` reaches with its total size, and the whole database's size. */
export async function tableDisk(
  label: string,
  sql: SqlExecutor,
): Promise<{ tables: TableDisk[]; databaseBytes: number }> {
  const { rows } = await sql.query<{ schema: string; name: string; bytes: string }>(
    `SELECT n.nspname AS schema, c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg_toast%'`,
  );
  const { rows: size } = await sql.query<{ bytes: string }>(
    'SELECT pg_database_size(current_database())::text AS bytes',
  );
  return {
    tables: rows.map((row) => ({
      database: label,
      table: `${row.schema}.${row.name}`,
      kind: diskKind(row.name),
      bytes: Number(row.bytes),
    })),
    databaseBytes: Number(size[0]?.bytes ?? 0),
  };
}

/** The same for the PostgreSQL database at `url`. */
export async function diskByTable(
  label: string,
  url: string,
): Promise<{ tables: TableDisk[]; databaseBytes: number }> {
  const sql = createPostgresClient({ connectionString: url, max: 1, applicationName: 'vop-bench' });
  try {
    return await tableDisk(label, sql);
  } finally {
    await sql.close();
  }
}
