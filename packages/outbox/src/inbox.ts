import type { IntegrationEnvelope } from '@vop/contracts';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import type { IncomingMessage } from '@vop/messaging';
import { parseEnvelope } from './envelope.js';

export async function migrateInbox(sql: SqlClient, schema: string): Promise<void> {
  await sql.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await sql.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.processed_events (
       consumer text NOT NULL,
       event_id uuid NOT NULL,
       processed_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (consumer, event_id)
     )`,
  );
}

export interface IdempotentHandlerOptions {
  sql: SqlClient;
  schema: string;
  /** Names the read model; each read model records its own processed ids. */
  consumer: string;
  /** Applies the event inside the transaction that also records its id. */
  apply: (envelope: IntegrationEnvelope, tx: SqlExecutor, message: IncomingMessage) => Promise<void>;
}

/**
 * Wraps a read-model update so each event is applied once: the event id is recorded in the same
 * transaction as the change, and a redelivered event finds its id and is skipped.
 */
export function idempotentHandler(options: IdempotentHandlerOptions): (message: IncomingMessage) => Promise<void> {
  const { sql, schema, consumer, apply } = options;
  const record = `INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`;
  return async (message) => {
    const envelope = parseEnvelope(message);
    await sql.transaction(async (tx) => {
      const inserted = await tx.query(record, [consumer, envelope.eventId]);
      if (inserted.rowCount === 0) return;
      await apply(envelope, tx, message);
    });
  };
}
