import type { IntegrationEnvelope } from '@vop/contracts';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import type { IncomingMessage } from '@vop/messaging';
import { parseEnvelope } from './envelope.js';
import { migrateSchema } from '@vop/event-store';

export async function migrateInbox(sql: SqlClient, schema: string): Promise<void> {
  await migrateSchema(sql, schema, [
    `CREATE TABLE IF NOT EXISTS ${schema}.processed_events (
         consumer text NOT NULL,
         event_id uuid NOT NULL,
         processed_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (consumer, event_id)
       )`,
  ]);
}

/**
 * Drops the processed ids of a consumer that keeps none any more, where no process of an older release
 * can still be writing them: a PGlite store is one process's. A PostgreSQL one keeps the table until the
 * operator drops it (docs/webhooks.md, docs/analytics-and-management.md). True when there was one.
 */
export async function dropRetiredInbox(sql: SqlClient, schema: string): Promise<boolean> {
  if (sql.kind !== 'pglite') return false;
  const { rows } = await sql.query<{ held: boolean }>(
    `SELECT to_regclass($1) IS NOT NULL AS held`,
    [`${schema}.processed_events`],
  );
  if (rows[0]?.held !== true) return false;
  await sql.query(`DROP TABLE ${schema}.processed_events`);
  return true;
}

export interface IdempotentHandlerOptions {
  sql: SqlClient;
  schema: string;
  /** Names the read model; each read model records its own processed ids. */
  consumer: string;
  /** Applies the event inside the transaction that also records its id. */
  apply: (envelope: IntegrationEnvelope, tx: SqlExecutor) => Promise<void>;
}

/**
 * Wraps a read-model update so each event is applied once: the event id is recorded in the same
 * transaction as the change, and a redelivered event finds its id and is skipped (a batch of one).
 */
export function idempotentHandler(
  options: IdempotentHandlerOptions,
): (message: IncomingMessage) => Promise<void> {
  const { apply, ...common } = options;
  const handleBatch = idempotentBatchHandler({
    ...common,
    applyBatch: async ([envelope], tx) => envelope && apply(envelope, tx),
  });
  return (message) => handleBatch([message]);
}

export interface IdempotentBatchHandlerOptions {
  sql: SqlClient;
  schema: string;
  consumer: string;
  /** Applies the events not seen before, in delivery order, inside the transaction that records their ids. */
  applyBatch: (envelopes: IntegrationEnvelope[], tx: SqlExecutor) => Promise<void>;
  /**
   * The events this read model reads (default: all). Others are neither applied nor recorded, and a
   * delivery holding none of them costs no transaction (e.g. batch progress among single checks).
   */
  relevant?: (envelope: IntegrationEnvelope) => boolean;
  /**
   * Events whose effect a repeat cannot change (their rows keep the revision they reflect): applied in
   * the same transaction and order, their ids not recorded. An import's account events, by the
   * thousand, then cost no processed-id row each.
   */
  repeatSafe?: (envelope: IntegrationEnvelope) => boolean;
}

/**
 * The batch form of idempotentHandler: one transaction records the ids of a whole delivered batch and
 * applies only the events whose ids were new, so a redelivered batch changes nothing twice.
 */
export function idempotentBatchHandler(
  options: IdempotentBatchHandlerOptions,
): (messages: IncomingMessage[]) => Promise<void> {
  const { sql, schema, consumer, applyBatch, relevant } = options;
  const repeatSafe = options.repeatSafe ?? (() => false);
  const record = `INSERT INTO ${schema}.processed_events (consumer, event_id)
                  SELECT $1, id::uuid FROM jsonb_array_elements_text($2::jsonb) AS ids(id)
                  ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id`;
  return async (messages) => {
    const parsed = envelopesOf(messages);
    const envelopes = relevant === undefined ? parsed : parsed.filter(relevant);
    if (envelopes.length === 0) return;
    const recorded = envelopes.filter((envelope) => !repeatSafe(envelope));
    await sql.transaction(async (tx) => {
      const fresh = new Set<string>();
      if (recorded.length > 0) {
        const { rows } = await tx.query<{ event_id: string }>(record, [
          consumer,
          JSON.stringify(recorded.map((envelope) => envelope.eventId)),
        ]);
        for (const row of rows) fresh.add(row.event_id);
      }
      const applied = envelopes.filter(
        (envelope) => fresh.has(envelope.eventId) || repeatSafe(envelope),
      );
      if (applied.length > 0) await applyBatch(applied, tx);
    });
  };
}

/**
 * Records events as processed by a consumer without delivering them (their effect was written by
 * the transaction `tx` itself): a later delivery of them is skipped.
 */
export async function markProcessed(
  tx: SqlExecutor,
  schema: string,
  consumer: string,
  eventIds: string[],
): Promise<void> {
  if (eventIds.length === 0) return;
  await tx.query(
    `INSERT INTO ${schema}.processed_events (consumer, event_id)
     SELECT $1, id::uuid FROM jsonb_array_elements_text($2::jsonb) AS ids(id) ON CONFLICT DO NOTHING`,
    [consumer, JSON.stringify(eventIds)],
  );
}

/**
 * A delivered batch's envelopes, each event once: a batch can hold one event twice (published twice
 * before a checkpoint); the first is kept.
 */
export function envelopesOf(messages: readonly IncomingMessage[]): IntegrationEnvelope[] {
  const seen = new Set<string>();
  return messages
    .map(parseEnvelope)
    .filter((envelope) => !seen.has(envelope.eventId) && seen.add(envelope.eventId));
}
