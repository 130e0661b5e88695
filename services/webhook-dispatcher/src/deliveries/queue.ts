import type {
  WebhookAttemptOutcome,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEventName,
} from '@vop/contracts';
import { schemaMigration, type SqlClient, type SqlExecutor } from '@vop/event-store';

/**
 * The delivery queue: one row per (registration, source event), its attempts beside it. Operational
 * state, not a read model of events: a delivery's retry schedule and lease live here so they
 * survive restarts, and several dispatcher instances share the work through leases.
 */
export const migrateDeliveries = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.deliveries (
       id uuid PRIMARY KEY,
       webhook_id uuid NOT NULL,
       source_event_id uuid NOT NULL,
       event_type text NOT NULL,
       payload text NOT NULL,
       status text NOT NULL,
       attempts integer NOT NULL DEFAULT 0,
       next_attempt_at timestamptz,
       lease_until timestamptz,
       created_at timestamptz NOT NULL,
       delivered_at timestamptz,
       UNIQUE (webhook_id, source_event_id)
     )`,
  `CREATE INDEX IF NOT EXISTS deliveries_due
       ON ${schema}.deliveries (webhook_id, next_attempt_at) WHERE status = 'pending'`,
  `CREATE TABLE IF NOT EXISTS ${schema}.delivery_attempts (
       id bigserial PRIMARY KEY,
       delivery_id uuid NOT NULL,
       attempted_at timestamptz NOT NULL,
       status_code integer,
       latency_ms integer NOT NULL,
       outcome text NOT NULL,
       error text,
       next_retry_at timestamptz
     )`,
  `CREATE INDEX IF NOT EXISTS delivery_attempts_delivery
       ON ${schema}.delivery_attempts (delivery_id, id)`,
  // Which dispatcher instance holds the lease: the per-registration bound counts the others' too.
  `ALTER TABLE ${schema}.deliveries ADD COLUMN IF NOT EXISTS lease_owner text`,
  // A verification ends once: its first end (completion or failure) is sent, a later one is not.
  `CREATE TABLE IF NOT EXISTS ${schema}.ended_verifications (
       verification_id uuid PRIMARY KEY
     )`,
  // When it ended: ends older than the retention horizon are pruned (first-end.ts).
  `ALTER TABLE ${schema}.ended_verifications
       ADD COLUMN IF NOT EXISTS ended_at timestamptz NOT NULL DEFAULT now()`,
  `CREATE INDEX IF NOT EXISTS ended_verifications_ended_at
       ON ${schema}.ended_verifications (ended_at)`,
]);

export interface NewDelivery {
  id: string;
  webhookId: string;
  sourceEventId: string;
  eventType: WebhookEventName;
  payload: string;
  /** Leased to this instance at once (it starts the attempt after the commit); else null. */
  leaseUntil?: Date | null;
  /** The instance holding that lease. */
  leaseOwner?: string | null;
}

/**
 * Queues deliveries due now; a source event already queued for a registration is skipped.
 * Returns the ids queued.
 */
export async function enqueueDeliveries(
  tx: SqlExecutor,
  schema: string,
  deliveries: NewDelivery[],
  now: Date,
): Promise<Set<string>> {
  if (deliveries.length === 0) return new Set();
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO ${schema}.deliveries (id, webhook_id, source_event_id, event_type, payload,
       status, next_attempt_at, lease_until, lease_owner, created_at)
     SELECT d.id, d."webhookId", d."sourceEventId", d."eventType", d.payload, 'pending', $2,
       d."leaseUntil", d."leaseOwner", $2
     FROM jsonb_to_recordset($1::jsonb) AS d(id uuid, "webhookId" uuid, "sourceEventId" uuid,
          "eventType" text, payload text, "leaseUntil" timestamptz, "leaseOwner" text)
     ON CONFLICT (webhook_id, source_event_id) DO NOTHING
     RETURNING id`,
    [JSON.stringify(deliveries), now.toISOString()],
  );
  return new Set(rows.map((row) => row.id));
}

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  participant: string;
  eventType: WebhookEventName;
  sourceEventId: string;
  url: string;
  secret: string;
  payload: string;
  /** Attempts already made in this round (a manual redelivery starts a new round). */
  attempts: number;
  createdAt: Date;
}

interface ClaimRow {
  id: string;
  webhook_id: string;
  participant: string;
  event_type: WebhookEventName;
  source_event_id: string;
  url: string;
  secret: string;
  payload: string;
  attempts: number;
  created_at: Date | string;
}

/**
 * Attempts in flight to each of these registrations held by other dispatcher instances (unexpired
 * leases). Called with the registrations locked (lockRegistrations), the count stays true until commit.
 */
export async function leasedByOthers(
  tx: SqlExecutor,
  schema: string,
  options: { webhookIds: readonly string[]; now: Date; owner: string },
): Promise<Map<string, number>> {
  if (options.webhookIds.length === 0) return new Map();
  const { rows } = await tx.query<{ webhook_id: string; count: string }>(
    `SELECT webhook_id, count(*)::text AS count FROM ${schema}.deliveries
      WHERE webhook_id = ANY($1::uuid[]) AND status = 'pending' AND lease_until > $2
        AND lease_owner IS DISTINCT FROM $3
      GROUP BY webhook_id`,
    [`{${options.webhookIds.join(',')}}`, options.now.toISOString(), options.owner],
  );
  return new Map(rows.map((row) => [row.webhook_id, Number(row.count)]));
}

/**
 * Locks registration rows (in id order, so two lockers never deadlock): every instance leases
 * deliveries of a registration only while holding its lock, which makes the bound per registration
 * hold across instances.
 */
export async function lockRegistrations(
  tx: SqlExecutor,
  schema: string,
  webhookIds: readonly string[],
): Promise<void> {
  if (webhookIds.length === 0) return;
  await tx.query(
    `SELECT id FROM ${schema}.registrations WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    [`{${webhookIds.join(',')}}`],
  );
}

/** A delivery leased to this instance, until `leaseUntil`. */
export interface LeasedDelivery extends ClaimedDelivery {
  leaseUntil: Date;
}

/**
 * Leases due deliveries of enabled registrations: of each, up to what this instance has room for
 * (`room[id]`, else `defaultRoom`) and the bound (`perWebhook`) less the leases other instances
 * hold; `limit` in all. Returns them with those other leases per locked registration (the due ones
 * and `refresh`): this instance has in flight at most the bound less those. A lease that runs out
 * (the instance died) makes the delivery due again: at-least-once.
 */
export async function claimDueDeliveries(
  sql: SqlClient,
  schema: string,
  options: {
    now: Date;
    leaseUntil: Date;
    perWebhook: number;
    room: Record<string, number>;
    defaultRoom: number;
    /** Registrations whose other leases are wanted even with nothing due. */
    refresh?: readonly string[];
    limit: number;
    /** This instance (the lease owner). */
    owner: string;
  },
): Promise<{ claimed: LeasedDelivery[]; heldElsewhere: Map<string, number>; due: number }> {
  const now = options.now.toISOString();
  const { rows, heldElsewhere, due } = await sql.transaction(async (tx) => {
    const { rows: dueRows } = await tx.query<{ webhook_id: string }>(
      `SELECT DISTINCT webhook_id FROM ${schema}.deliveries
        WHERE status = 'pending' AND next_attempt_at <= $1
          AND (lease_until IS NULL OR lease_until <= $1)`,
      [now],
    );
    const due = dueRows.map((row) => row.webhook_id);
    const webhookIds = [...new Set([...due, ...(options.refresh ?? [])])];
    const none = { rows: [], due: due.length };
    if (webhookIds.length === 0) return { ...none, heldElsewhere: new Map<string, number>() };
    await lockRegistrations(tx, schema, webhookIds);
    const others = await leasedByOthers(tx, schema, {
      webhookIds,
      now: options.now,
      owner: options.owner,
    });
    const room = Object.fromEntries(
      due
        .map((id) => {
          const left = Math.min(
            options.room[id] ?? options.defaultRoom,
            options.perWebhook - (others.get(id) ?? 0),
          );
          return [id, left] as const;
        })
        .filter(([, left]) => left > 0),
    );
    if (Object.keys(room).length === 0) return { ...none, heldElsewhere: others };
    const { rows: claimed } = await tx.query<ClaimRow>(
      `WITH picked AS (
         SELECT d.id FROM ${schema}.registrations r
         CROSS JOIN LATERAL (
           SELECT id FROM ${schema}.deliveries
           WHERE webhook_id = r.id AND status = 'pending' AND next_attempt_at <= $1
             AND (lease_until IS NULL OR lease_until <= $1)
           ORDER BY next_attempt_at, id LIMIT ($3::jsonb ->> r.id::text)::int
         ) d
         WHERE r.enabled AND $3::jsonb ? r.id::text
         LIMIT $4
       )
       UPDATE ${schema}.deliveries d SET lease_until = $2, lease_owner = $5
       FROM picked p, ${schema}.registrations r
       WHERE d.id = p.id AND r.id = d.webhook_id AND d.status = 'pending'
         AND (d.lease_until IS NULL OR d.lease_until <= $1)
       RETURNING d.id, d.webhook_id, r.participant, d.event_type, d.source_event_id, r.url,
         r.secret, d.payload, d.attempts, d.created_at`,
      [now, options.leaseUntil.toISOString(), JSON.stringify(room), options.limit, options.owner],
    );
    return { rows: claimed, heldElsewhere: others, due: due.length };
  });
  const claimed = rows.map((row) => ({
    id: row.id,
    webhookId: row.webhook_id,
    participant: row.participant,
    eventType: row.event_type,
    sourceEventId: row.source_event_id,
    url: row.url,
    secret: row.secret,
    payload: row.payload,
    attempts: Number(row.attempts),
    createdAt: new Date(row.created_at),
    leaseUntil: options.leaseUntil,
  }));
  return { claimed, heldElsewhere, due };
}

/** Gives back leases this instance will not use (it is stopping): due again at once. */
export async function releaseLeases(
  sql: SqlExecutor,
  schema: string,
  options: { deliveryIds: readonly string[]; owner: string },
): Promise<void> {
  if (options.deliveryIds.length === 0) return;
  await sql.query(
    `UPDATE ${schema}.deliveries SET lease_until = NULL, lease_owner = NULL
      WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'pending'`,
    [`{${options.deliveryIds.join(',')}}`, options.owner],
  );
}

export interface AttemptRecord {
  deliveryId: string;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  outcome: WebhookAttemptOutcome;
  error?: string | undefined;
  /** What becomes of the delivery; `nextAttemptAt` only with `pending`. */
  status: Exclude<WebhookDeliveryStatus, 'cancelled'>;
  nextAttemptAt: Date | null;
}

const ATTEMPT_COLUMNS = `"deliveryId" uuid, "attemptedAt" timestamptz, "statusCode" integer,
  "latencyMs" integer, outcome text, error text, status text, "nextAttemptAt" timestamptz`;

/**
 * Records attempts (at most one per delivery) and moves their deliveries on: one statement
 * whatever the number (group commit of the attempts that finished together). A delivery no longer
 * pending (cancelled meanwhile, or finished by another instance after this one's lease ran out)
 * keeps its state; the attempt is logged all the same.
 */
export async function recordAttempts(
  tx: SqlExecutor,
  schema: string,
  attempts: AttemptRecord[],
): Promise<void> {
  if (attempts.length === 0) return;
  const rows = JSON.stringify(
    attempts.map((attempt) => ({
      ...attempt,
      attemptedAt: attempt.attemptedAt.toISOString(),
      nextAttemptAt: attempt.nextAttemptAt?.toISOString() ?? null,
      error: attempt.error ?? null,
    })),
  );
  await tx.query(
    `WITH a AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS a(${ATTEMPT_COLUMNS})),
     logged AS (
       INSERT INTO ${schema}.delivery_attempts
         (delivery_id, attempted_at, status_code, latency_ms, outcome, error, next_retry_at)
       SELECT "deliveryId", "attemptedAt", "statusCode", "latencyMs", outcome, error,
         "nextAttemptAt" FROM a
     )
     UPDATE ${schema}.deliveries d
     SET attempts = d.attempts + 1, status = a.status, next_attempt_at = a."nextAttemptAt",
       lease_until = NULL,
       delivered_at = CASE WHEN a.status = 'delivered' THEN a."attemptedAt" ELSE d.delivered_at END
     FROM a WHERE d.id = a."deliveryId" AND d.status = 'pending'`,
    [rows],
  );
}

/** A registration disabled or deleted: what was still to be sent to it is not. */
export async function cancelPendingDeliveries(
  tx: SqlExecutor,
  schema: string,
  webhookId: string,
): Promise<void> {
  await tx.query(
    `UPDATE ${schema}.deliveries SET status = 'cancelled', next_attempt_at = NULL
     WHERE webhook_id = $1 AND status = 'pending'`,
    [webhookId],
  );
}

/**
 * A new round of attempts for a finished delivery (dead-lettered, delivered, or cancelled), due
 * now, with the same webhook-id. Returns false when there is no such delivery.
 */
export async function redeliver(
  sql: SqlExecutor,
  schema: string,
  webhookId: string,
  deliveryId: string,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE ${schema}.deliveries
     SET status = 'pending', attempts = 0, next_attempt_at = $3, lease_until = NULL
     WHERE id = $1 AND webhook_id = $2 AND status <> 'pending'`,
    [deliveryId, webhookId, now.toISOString()],
  );
  return rowCount > 0;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_type: WebhookEventName;
  status: WebhookDeliveryStatus;
  created_at: Date | string;
  delivered_at: Date | string | null;
  next_attempt_at: Date | string | null;
  attempts: {
    attempted_at: string;
    status_code: number | null;
    latency_ms: number;
    outcome: WebhookAttemptOutcome;
    error: string | null;
    next_retry_at: string | null;
  }[];
}

const iso = (value: Date | string): string => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null): string | null =>
  value === null ? null : iso(value);

/** A registration's deliveries, newest first, each with its attempts in order. */
export async function listDeliveries(
  sql: SqlExecutor,
  schema: string,
  options: {
    webhookIds: string[];
    status?: WebhookDeliveryStatus;
    deliveryId?: string;
    limit: number;
    /** Only deliveries after this one in the listing's order (newest first): the page cursor. */
    after?: string;
  },
): Promise<WebhookDeliveryRecord[]> {
  const { rows } = await sql.query<DeliveryRow>(
    `SELECT d.id, d.webhook_id, d.event_type, d.status, d.created_at, d.delivered_at,
       d.next_attempt_at,
       COALESCE((SELECT jsonb_agg(jsonb_build_object(
           'attempted_at', a.attempted_at, 'status_code', a.status_code,
           'latency_ms', a.latency_ms, 'outcome', a.outcome, 'error', a.error,
           'next_retry_at', a.next_retry_at) ORDER BY a.id)
         FROM ${schema}.delivery_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempts
     FROM ${schema}.deliveries d
     WHERE d.webhook_id IN (SELECT jsonb_array_elements_text($1::jsonb)::uuid) AND ($2::text IS NULL OR d.status = $2)
       AND ($4::uuid IS NULL OR d.id = $4)
       AND ($5::uuid IS NULL OR (d.created_at, d.id) <
            (SELECT c.created_at, c.id FROM ${schema}.deliveries c WHERE c.id = $5))
     ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
    [
      JSON.stringify(options.webhookIds),
      options.status ?? null,
      options.limit,
      options.deliveryId ?? null,
      options.after ?? null,
    ],
  );
  return rows.map((row) => ({
    id: row.id,
    webhook_id: row.webhook_id,
    event_type: row.event_type,
    status: row.status,
    created_at: iso(row.created_at),
    delivered_at: isoOrNull(row.delivered_at),
    next_attempt_at: isoOrNull(row.next_attempt_at),
    attempts: row.attempts.map((attempt) => ({
      attempted_at: iso(attempt.attempted_at),
      status_code: attempt.status_code,
      latency_ms: attempt.latency_ms,
      outcome: attempt.outcome,
      ...(attempt.error !== null && { error: attempt.error }),
      next_retry_at: isoOrNull(attempt.next_retry_at),
    })),
  }));
}

/** How many deliveries of these registrations are in this state (a list's true total, beyond its page). */
export async function countDeliveries(
  sql: SqlExecutor,
  schema: string,
  options: { webhookIds: string[]; status: WebhookDeliveryStatus },
): Promise<number> {
  const { rows } = await sql.query<{ count: string }>(
    `SELECT count(*)::text AS count FROM ${schema}.deliveries
     WHERE webhook_id IN (SELECT jsonb_array_elements_text($1::jsonb)::uuid) AND status = $2`,
    [JSON.stringify(options.webhookIds), options.status],
  );
  return Number(rows[0]?.count ?? 0);
}

/**
 * Deliveries waiting for an attempt (the queue depth metric), and when the first of an enabled
 * registration may be claimed (its retry comes due or another instance's lease runs out).
 */
export async function pendingSummary(
  sql: SqlExecutor,
  schema: string,
): Promise<{ count: number; nextDueAt: Date | undefined }> {
  const { rows } = await sql.query<{ count: string; next_due_ms: number | string | null }>(
    `SELECT count(*)::text AS count,
            (extract(epoch FROM min(greatest(d.next_attempt_at, coalesce(d.lease_until, d.next_attempt_at)))
              FILTER (WHERE r.enabled)) * 1000)::float8 AS next_due_ms
       FROM ${schema}.deliveries d LEFT JOIN ${schema}.registrations r ON r.id = d.webhook_id
      WHERE d.status = 'pending'`,
  );
  const nextDueMs = rows[0]?.next_due_ms;
  return {
    count: Number(rows[0]?.count ?? 0),
    nextDueAt:
      nextDueMs === null || nextDueMs === undefined ? undefined : new Date(Number(nextDueMs)),
  };
}
