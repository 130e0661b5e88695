import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';

/** `user` is a participant id, key id or "system": never a person's name. */
export interface AuditEntry {
  timestamp: string;
  operation: string;
  user: string;
  result: 'success' | 'failure';
  /** What was acted on (e.g. a key id), when there is one. */
  target?: string;
  /** HTTP status of the operation, when it came through HTTP. */
  status?: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

interface AuditRow {
  position: string;
  occurred_at: Date | string;
  operation: string;
  actor: string;
  result: 'success' | 'failure';
  target: string | null;
  status: number | null;
}

/**
 * Append-only: the table has no UPDATE or DELETE path in code, and a trigger refuses both in the database.
 */
export class AuditLog {
  constructor(
    readonly sql: SqlClient,
    readonly schema: string,
  ) {}

  async migrate(): Promise<void> {
    await migrateSchema(this.sql, this.schema, [
      `CREATE TABLE IF NOT EXISTS ${this.schema}.audit_log (
           position bigserial PRIMARY KEY,
           occurred_at timestamptz NOT NULL DEFAULT now(),
           operation text NOT NULL,
           actor text NOT NULL,
           result text NOT NULL CHECK (result IN ('success', 'failure')),
           target text,
           status integer
         )`,
      `CREATE OR REPLACE FUNCTION ${this.schema}.audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$`,
      `DROP TRIGGER IF EXISTS audit_log_append_only ON ${this.schema}.audit_log`,
      `CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON ${this.schema}.audit_log
         FOR EACH ROW EXECUTE FUNCTION ${this.schema}.audit_log_append_only()`,
    ]);
  }

  async append(entry: Omit<AuditEntry, 'timestamp'>, tx: SqlExecutor = this.sql): Promise<void> {
    await tx.query(
      `INSERT INTO ${this.schema}.audit_log (operation, actor, result, target, status) VALUES ($1, $2, $3, $4, $5)`,
      [entry.operation, entry.user, entry.result, entry.target ?? null, entry.status ?? null],
    );
  }

  /** Newest first; `cursor` is the nextCursor of the previous page. */
  async page(options: { limit: number; cursor?: string }): Promise<AuditPage> {
    const { rows } = await this.sql.query<AuditRow>(
      `SELECT position::text AS position, occurred_at, operation, actor, result, target, status
       FROM ${this.schema}.audit_log
       WHERE ($1::bigint IS NULL OR position < $1::bigint)
       ORDER BY position DESC
       LIMIT $2`,
      [options.cursor ?? null, options.limit + 1],
    );
    const page = rows.slice(0, options.limit);
    return {
      entries: page.map((row) => ({
        timestamp: new Date(row.occurred_at).toISOString(),
        operation: row.operation,
        user: row.actor,
        result: row.result,
        ...(row.target !== null && { target: row.target }),
        ...(row.status !== null && { status: row.status }),
      })),
      nextCursor: rows.length > options.limit ? (page[page.length - 1] as AuditRow).position : null,
    };
  }
}
