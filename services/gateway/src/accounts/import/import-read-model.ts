import type {
  AccountImportResponse,
  AccountImportRowError,
  AccountImportRows,
  AccountImportStatus,
} from '@vop/contracts';
import { schemaMigration, type SqlExecutor } from '@vop/event-store';
import type { ImportFormat } from './record-sources.js';

/** Row errors kept per import (the counts go on); the status answers with the first ones. */
export const MAX_STORED_ROW_ERRORS = 10_000;
export const ROW_ERRORS_SHOWN = 1_000;

/** Each import as a resource: its status and counts, updated with every chunk it commits. */
export const migrateAccountImports = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.account_imports (
         id uuid PRIMARY KEY,
         status text NOT NULL,
         format text NOT NULL,
         actor text NOT NULL,
         started_at timestamptz NOT NULL,
         finished_at timestamptz,
         rows_read bigint NOT NULL DEFAULT 0,
         rows_created bigint NOT NULL DEFAULT 0,
         rows_updated bigint NOT NULL DEFAULT 0,
         rows_unchanged bigint NOT NULL DEFAULT 0,
         rows_failed bigint NOT NULL DEFAULT 0,
         failure text
       )`,
  `CREATE TABLE IF NOT EXISTS ${schema}.account_import_errors (
         import_id uuid NOT NULL,
         row_number bigint NOT NULL,
         field text NOT NULL,
         code text NOT NULL,
         PRIMARY KEY (import_id, row_number)
       )`,
]);

export async function startImport(
  sql: SqlExecutor,
  schema: string,
  start: { id: string; format: ImportFormat; actor: string; startedAt: string },
): Promise<boolean> {
  const { rows } = await sql.query(
    `INSERT INTO ${schema}.account_imports (id, status, format, actor, started_at)
     VALUES ($1, 'RUNNING', $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [start.id, start.format, start.actor, start.startedAt],
  );
  return rows.length === 1;
}

/** Adds a chunk's counts and row errors, in the chunk's own transaction. */
export async function recordChunk(
  tx: SqlExecutor,
  schema: string,
  id: string,
  rows: AccountImportRows,
  rowErrors: readonly AccountImportRowError[],
): Promise<void> {
  await tx.query(
    `UPDATE ${schema}.account_imports
        SET rows_read = rows_read + $2, rows_created = rows_created + $3,
            rows_updated = rows_updated + $4, rows_unchanged = rows_unchanged + $5,
            rows_failed = rows_failed + $6
      WHERE id = $1`,
    [id, rows.read, rows.created, rows.updated, rows.unchanged, rows.failed],
  );
  if (rowErrors.length > 0)
    await tx.query(
      `INSERT INTO ${schema}.account_import_errors (import_id, row_number, field, code)
       SELECT $1, row_number, field, code FROM unnest($2::bigint[], $3::text[], $4::text[])
           AS failed(row_number, field, code)
       ON CONFLICT DO NOTHING`,
      [
        id,
        rowErrors.map((e) => e.row),
        rowErrors.map((e) => e.field),
        rowErrors.map((e) => e.code),
      ],
    );
}

export async function finishImport(
  sql: SqlExecutor,
  schema: string,
  id: string,
  end: { status: Exclude<AccountImportStatus, 'RUNNING'>; finishedAt: string; failure?: string },
): Promise<void> {
  await sql.query(
    `UPDATE ${schema}.account_imports SET status = $2, finished_at = $3, failure = $4 WHERE id = $1`,
    [id, end.status, end.finishedAt, end.failure ?? null],
  );
}

interface ImportRowData {
  id: string;
  status: AccountImportStatus;
  format: ImportFormat;
  started_at: Date | string;
  finished_at: Date | string | null;
  rows_read: string;
  rows_created: string;
  rows_updated: string;
  rows_unchanged: string;
  rows_failed: string;
  failure: string | null;
}

/** The import's status as answered (statusUrl is added by the route). */
export async function findImport(
  sql: SqlExecutor,
  schema: string,
  id: string,
): Promise<Omit<AccountImportResponse, 'statusUrl'> | undefined> {
  const { rows } = await sql.query<ImportRowData>(
    `SELECT id, status, format, started_at, finished_at, rows_read::text, rows_created::text,
            rows_updated::text, rows_unchanged::text, rows_failed::text, failure
       FROM ${schema}.account_imports WHERE id = $1`,
    [id],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const { rows: errorRows } = await sql.query<{ row_number: string; field: string; code: string }>(
    `SELECT row_number::text, field, code FROM ${schema}.account_import_errors
      WHERE import_id = $1 ORDER BY row_number LIMIT $2`,
    [id, ROW_ERRORS_SHOWN + 1],
  );
  const failed = Number(row.rows_failed);
  const shown = errorRows.slice(0, ROW_ERRORS_SHOWN);
  return {
    importId: row.id,
    status: row.status,
    format: row.format,
    startedAt: new Date(row.started_at).toISOString(),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
    rows: {
      read: Number(row.rows_read),
      created: Number(row.rows_created),
      updated: Number(row.rows_updated),
      unchanged: Number(row.rows_unchanged),
      failed,
    },
    errors: shown.map((error) => ({
      row: Number(error.row_number),
      field: error.field,
      code: error.code as AccountImportRowError['code'],
    })),
    errorsTruncated: failed > shown.length,
    ...(row.failure !== null && { failure: row.failure }),
  };
}
