/** DDL for one service's event store. Written for PostgreSQL 15 (the Debian server) and PGlite. */

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

/** Schema names end up in SQL text and NOTIFY channel names (at most 63 bytes), so they are restricted. */
export function assertValidSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `Invalid event store schema name "${schema}": use 1-40 of a-z, 0-9, _ (not starting with a digit)`,
    );
  }
}

export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

export function migrationStatements(schema: string): string[] {
  const s = quoteIdentifier(schema);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.messages (
      global_position bigserial PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      stream_id text NOT NULL,
      stream_position integer NOT NULL CHECK (stream_position > 0),
      event_id uuid NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      occurred_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT messages_stream_position_key UNIQUE (stream_id, stream_position),
      CONSTRAINT messages_event_id_key UNIQUE (event_id)
    )`,
    // readAll walks the store in (transaction_id, global_position) order.
    `CREATE INDEX IF NOT EXISTS messages_transaction_order_idx ON ${s}.messages (transaction_id, global_position)`,
    `CREATE TABLE IF NOT EXISTS ${s}.subscription_checkpoints (
      name text PRIMARY KEY,
      transaction_id xid8 NOT NULL,
      global_position bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
  ];
}
