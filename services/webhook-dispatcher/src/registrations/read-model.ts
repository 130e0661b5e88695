import type { WebhookEventName, WebhookRecord } from '@vop/contracts';
import { schemaMigration, type RecordedEvent, type SqlExecutor } from '@vop/event-store';
import { cancelPendingDeliveries } from '../deliveries/queue.js';
import type { RegistrationEvent } from './decider.js';

/**
 * The registrations read model: projected inline, in the transaction that appends the events. A
 * registration disabled or deleted also cancels what was still queued for it.
 */
export const migrateRegistrations = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.registrations (
       id uuid PRIMARY KEY,
       participant text NOT NULL,
       url text NOT NULL,
       events jsonb NOT NULL,
       secret text NOT NULL,
       enabled boolean NOT NULL,
       disabled_reason text,
       deleted boolean NOT NULL DEFAULT false,
       created_at timestamptz NOT NULL
     )`,
  `CREATE INDEX IF NOT EXISTS registrations_participant
       ON ${schema}.registrations (participant) WHERE NOT deleted`,
]);

export async function projectRegistrationEvents(
  tx: SqlExecutor,
  schema: string,
  events: readonly Pick<RecordedEvent, 'type' | 'data'>[],
): Promise<void> {
  for (const recorded of events) {
    const event = { type: recorded.type, data: recorded.data } as RegistrationEvent;
    switch (event.type) {
      case 'WebhookRegistered': {
        const { webhookId, participant, url, events: names, secret, registeredAt } = event.data;
        await tx.query(
          `INSERT INTO ${schema}.registrations
             (id, participant, url, events, secret, enabled, created_at)
           VALUES ($1, $2, $3, $4::jsonb, $5, true, $6) ON CONFLICT (id) DO NOTHING`,
          [webhookId, participant, url, JSON.stringify(names), secret, registeredAt],
        );
        break;
      }
      case 'WebhookDisabled':
        await tx.query(
          `UPDATE ${schema}.registrations SET enabled = false, disabled_reason = $2 WHERE id = $1`,
          [event.data.webhookId, event.data.reason],
        );
        await cancelPendingDeliveries(tx, schema, event.data.webhookId);
        break;
      case 'WebhookDeleted':
        await tx.query(
          `UPDATE ${schema}.registrations SET deleted = true, enabled = false WHERE id = $1`,
          [event.data.webhookId],
        );
        await cancelPendingDeliveries(tx, schema, event.data.webhookId);
        break;
    }
  }
}

interface RegistrationRow {
  id: string;
  participant: string;
  url: string;
  events: WebhookEventName[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date | string;
}

const COLUMNS = 'id, participant, url, events, enabled, disabled_reason, created_at';

export function toWebhookRecord(row: RegistrationRow): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    ...(row.disabled_reason !== null && { disabled_reason: row.disabled_reason }),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** A participant's registration (never another's, never a deleted one). */
export async function findRegistration(
  sql: SqlExecutor,
  schema: string,
  participant: string,
  id: string,
): Promise<WebhookRecord | undefined> {
  const { rows } = await sql.query<RegistrationRow>(
    `SELECT ${COLUMNS} FROM ${schema}.registrations
     WHERE id = $1 AND participant = $2 AND NOT deleted`,
    [id, participant],
  );
  return rows[0] && toWebhookRecord(rows[0]);
}

export async function listRegistrations(
  sql: SqlExecutor,
  schema: string,
  participant: string,
): Promise<WebhookRecord[]> {
  const { rows } = await sql.query<RegistrationRow>(
    `SELECT ${COLUMNS} FROM ${schema}.registrations
     WHERE participant = $1 AND NOT deleted ORDER BY created_at, id`,
    [participant],
  );
  return rows.map(toWebhookRecord);
}

/**
 * The events the enabled registrations of these participants asked for, by participant, read without
 * a lock: a delivered batch none of them wants costs this one statement and no transaction.
 */
export async function eventsWantedBy(
  sql: SqlExecutor,
  schema: string,
  participants: readonly string[],
): Promise<Map<string, Set<WebhookEventName>>> {
  const { rows } = await sql.query<{ participant: string; events: WebhookEventName[] }>(
    `SELECT participant, events FROM ${schema}.registrations
     WHERE enabled AND participant IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    [JSON.stringify(participants)],
  );
  const wanted = new Map<string, Set<WebhookEventName>>();
  for (const { participant, events } of rows) {
    const of = wanted.get(participant) ?? new Set();
    for (const event of events) of.add(event);
    wanted.set(participant, of);
  }
  return wanted;
}
