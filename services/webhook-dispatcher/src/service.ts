import { randomUUID } from 'node:crypto';
import { createAddressGuard } from '@vop/address-guard';
import {
  TOPIC_PARTITIONS,
  topicNames,
  WebhookDeliveryDeadLettered,
  type IntegrationEnvelope,
  type WebhookEventName,
} from '@vop/contracts';
import { EventStore, type SqlClient, type SqlExecutor } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import { loopFailureLog } from '@vop/http';
import type { Logger, ServiceMetrics } from '@vop/observability';
import {
  OutboxRelay,
  dropRetiredInbox,
  envelopesOf,
  logHandlerError,
  registerLagMetrics,
} from '@vop/outbox';
import { createPersonalData } from '@vop/personal-data';
import type { Router } from 'express';
import { webhookNoticeFor, type WebhookNotice } from './deliveries/payload.js';
import { firstEndsOf, pruneEndedVerifications } from './deliveries/first-end.js';
import {
  enqueueDeliveries,
  leasedByOthers,
  migrateDeliveries,
  type NewDelivery,
} from './deliveries/queue.js';
import { deliveryRoutes } from './deliveries/routes.js';
import { createSender } from './deliveries/sender.js';
import { createDeliveryWorker, type DeliveryHandoff } from './deliveries/worker.js';
import { eventsWantedBy, migrateRegistrations } from './registrations/read-model.js';
import { registrationRoutes } from './registrations/routes.js';
import { encryptPlainSecrets, secretProtection } from './registrations/secret-protection.js';
import type { WebhookSettings } from './settings.js';

export const WEBHOOK_SCHEMA = 'webhooks';
const QUEUED_CHANNEL = 'webhooks_deliveries_queued';
/** Retry-After is honoured up to the schedule's longest default wait. */
const MAX_RETRY_AFTER_MS = 10 * 60 * 60 * 1000;
const RELAY_NAME = 'webhook-dead-letters';

export interface WebhookDispatcherOptions {
  sql: SqlClient;
  /** The database of the personal-data key store (VOP_KEYSTORE_DATABASE_URL); default `sql`. */
  keySql?: SqlClient;
  bus: Bus;
  logger: Logger;
  settings: WebhookSettings;
  schema?: string;
  /** Prefix of topics and consumer groups (VOP_KAFKA_NAMESPACE). */
  namespace?: string;
  metrics?: ServiceMetrics;
  clock?: () => Date;
  random?: () => number;
}

export interface WebhookDispatcher {
  readonly store: EventStore;
  /** The webhooks family (packages/http/src/route-families.ts), served behind the gateway's edge. */
  readonly routers: Router[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface Subscriber {
  id: string;
  participant: string;
  events: WebhookEventName[];
  url: string;
  secret: string;
}

/**
 * Enabled registrations of the participants in a batch of notices, by participant, locked (in id
 * order, so two lockers never deadlock): leases are taken under these locks, which makes the
 * per-registration bound hold across instances. One statement for both.
 */
async function lockedSubscriptionsOf(
  tx: SqlExecutor,
  schema: string,
  participants: string[],
): Promise<Map<string, Subscriber[]>> {
  const { rows } = await tx.query<Subscriber>(
    `SELECT id, participant, events, url, secret FROM ${schema}.registrations
     WHERE enabled AND participant IN (SELECT jsonb_array_elements_text($1::jsonb))
     ORDER BY id FOR UPDATE`,
    [JSON.stringify(participants)],
  );
  const byParticipant = new Map<string, Subscriber[]>();
  for (const row of rows)
    byParticipant.set(row.participant, [...(byParticipant.get(row.participant) ?? []), row]);
  return byParticipant;
}

/** An event a webhook may be sent for, with what it means for webhooks. */
interface Noticed {
  envelope: IntegrationEnvelope;
  notice: WebhookNotice;
}

/**
 * Consumes verification completions and batch completions, queues one delivery per matching
 * registration of the event's participant, and delivers them with signed, retried attempts. Dead
 * letters go out on the webhook dead-letter topic through this service's outbox.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { sql, bus, logger, settings } = options;
  const schema = options.schema ?? WEBHOOK_SCHEMA;
  const namespace = options.namespace ?? '';
  const topics = topicNames(namespace);
  const clock = options.clock ?? (() => new Date());
  const store = new EventStore(sql, { schema });
  const guard = createAddressGuard({
    httpsOnly: settings.httpsOnly,
    allowedNetworks: settings.allowedNetworks,
  });
  const sender = createSender({ guard, timeoutMs: settings.attemptTimeoutMs });
  const personalData = createPersonalData(options.keySql ?? sql);
  const secrets = secretProtection(personalData.cipher);
  const instanceId = randomUUID();
  // A PGlite database belongs to one process: no other instance holds leases there.
  const soleInstance = sql.kind === 'pglite';
  const worker = createDeliveryWorker({
    store,
    sender,
    instanceId,
    revealSecret: secrets.reveal,
    logger,
    metrics: options.metrics,
    policy: { delaysMs: settings.retryDelaysMs, jitter: 0.2, maxRetryAfterMs: MAX_RETRY_AFTER_MS },
    attemptTimeoutMs: settings.attemptTimeoutMs,
    endpointConcurrency: settings.endpointConcurrency,
    maxInFlight: settings.maxInFlight,
    pollIntervalMs: settings.pollIntervalMs,
    clock,
    random: options.random ?? Math.random,
  });
  const relay = new OutboxRelay({
    store,
    bus,
    name: RELAY_NAME,
    route: (event) =>
      event.type === 'WebhookDeliveryDeadLettered'
        ? {
            topic: topics.webhookDeadLetters,
            key: WebhookDeliveryDeadLettered.parse(event).data.webhookId,
          }
        : null,
    onError: loopFailureLog(logger, 'webhook outbox relay failed; retrying'),
  });
  const groupId = `${namespace}webhook-dispatcher`;
  // Batch entries' ends travel on their own topic (verification.success/failure with batch_id).
  const consumed = [
    topics.verificationCompleted,
    topics.verificationCompletedBatch,
    // The ends of verifications decided where they were recorded (gateway, batch service).
    topics.verificationCompletedDecided,
    topics.verificationCompletedBatchDecided,
    topics.batchEvents,
  ];
  if (options.metrics)
    registerLagMetrics(options.metrics, {
      bus,
      consumers: () => [{ groupId, topics: consumed }],
      outboxes: [{ store, relayName: RELAY_NAME }],
    });
  const subscriptions: Subscription[] = [];
  let stopListening: (() => Promise<void>) | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  let pruning: Promise<void> | undefined;

  /** Forgets verification ends past the retention horizon; one run at a time. */
  function pruneEnds(): void {
    pruning ??= pruneEndedVerifications(
      sql,
      schema,
      new Date(clock().getTime() - settings.endedRetentionMs),
    )
      .then((pruned) => {
        if (pruned > 0) logger.info({ pruned }, 'ended verifications pruned');
      })
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'pruning ended verifications failed; retrying'),
      )
      .finally(() => {
        pruning = undefined;
      });
  }

  /**
   * The notices of a delivered batch that need the queue's transaction: an end that may meet another
   * (its first end is remembered), and any notice an enabled registration of its participant asked
   * for. The rest (every check's end, where nobody registered a webhook) cost one unlocked read.
   */
  async function noticesToQueue(envelopes: IntegrationEnvelope[]): Promise<Noticed[]> {
    const all = envelopes.flatMap((envelope) => {
      const notice = webhookNoticeFor(envelope);
      return notice ? [{ envelope, notice }] : [];
    });
    if (all.length === 0) return [];
    const wanted = await eventsWantedBy(sql, schema, [
      ...new Set(all.map(({ notice }) => notice.participant)),
    ]);
    return all.filter(
      ({ notice }) =>
        notice.endsVerification !== undefined ||
        wanted.get(notice.participant)?.has(notice.event) === true,
    );
  }

  /**
   * Queues the notices' deliveries in one transaction. No processed ids are kept: a repeat changes
   * nothing, since an end already remembered is not first again and a registration holds one
   * delivery per source event (deliveries/queue.ts).
   */
  async function queueDeliveries(
    all: Noticed[],
    tx: SqlExecutor,
    handoff: DeliveryHandoff,
  ): Promise<void> {
    const now = clock();
    const firsts = await firstEndsOf(
      tx,
      schema,
      all.flatMap(({ notice }) => notice.endsVerification ?? []),
      now,
    );
    const notices = all.filter(({ notice }) => {
      if (notice.endsVerification === undefined) return true;
      // Taken once: a second end of the same verification in this batch is dropped too.
      return firsts.delete(notice.endsVerification);
    });
    if (notices.length === 0) return;
    const subscribers = await lockedSubscriptionsOf(tx, schema, [
      ...new Set(notices.map(({ notice }) => notice.participant)),
    ]);
    const targets = notices.map(({ envelope, notice }) => ({
      envelope,
      notice,
      registrations: (subscribers.get(notice.participant) ?? []).filter((registration) =>
        registration.events.includes(notice.event),
      ),
    }));
    const webhookIds = [
      ...new Set(targets.flatMap(({ registrations }) => registrations.map(({ id }) => id))),
    ];
    const heldElsewhere = soleInstance
      ? new Map<string, number>()
      : await leasedByOthers(tx, schema, { webhookIds, now, owner: instanceId });
    const queued = targets.flatMap(({ envelope, notice, registrations }) =>
      registrations.map((registration) => {
        const leaseUntil = handoff.reserve(registration.id, heldElsewhere.get(registration.id));
        return {
          registration,
          delivery: {
            id: randomUUID(),
            webhookId: registration.id,
            sourceEventId: envelope.eventId,
            eventType: notice.event,
            payload: JSON.stringify(notice.payload),
            leaseUntil,
            leaseOwner: leaseUntil === null ? null : instanceId,
          } satisfies NewDelivery,
        };
      }),
    );
    const inserted = await enqueueDeliveries(
      tx,
      schema,
      queued.map(({ delivery }) => delivery),
      now,
    );
    // Other instances are told only of what this one left for the claim loop.
    if (queued.some(({ delivery }) => delivery.leaseUntil === null && inserted.has(delivery.id)))
      await sql.notify(QUEUED_CHANNEL, tx);
    for (const { registration, delivery } of queued) {
      if (!delivery.leaseUntil || !inserted.has(delivery.id)) continue;
      handoff.queued(
        {
          id: delivery.id,
          webhookId: registration.id,
          participant: registration.participant,
          eventType: delivery.eventType,
          sourceEventId: delivery.sourceEventId,
          url: registration.url,
          secret: registration.secret,
          payload: delivery.payload,
          attempts: 0,
          createdAt: now,
          leaseUntil: delivery.leaseUntil,
        },
        heldElsewhere.get(registration.id),
      );
    }
  }

  return {
    store,
    routers: [
      // The dead-letter list is mounted before /webhooks/{id} would take "dead-letters" as an id.
      deliveryRoutes({ store, clock, onRedelivery: () => worker.wake() }),
      registrationRoutes({ store, guard, secrets, clock, onDeleted: worker.forget }),
    ],
    async start() {
      await store.migrate();
      await migrateRegistrations(sql, schema);
      // Kept by releases before: a row for every check's end, never pruned.
      if (await dropRetiredInbox(sql, schema)) logger.info('retired processed ids dropped');
      await personalData.keys.migrate();
      const encrypted = await encryptPlainSecrets(store, secrets);
      if (encrypted > 0) logger.info({ encrypted }, 'plain-text webhook secrets encrypted');
      await migrateDeliveries(sql, schema);
      await bus.ensureTopics(
        [...consumed, topics.webhookDeadLetters].map((name) => ({
          name,
          partitions: TOPIC_PARTITIONS,
        })),
      );
      stopListening = await sql.listen(QUEUED_CHANNEL, () => worker.wake());
      subscriptions.push(
        await bus.subscribe({
          groupId,
          onHandlerError: logHandlerError(logger, 'webhook-deliveries'),
          topics: consumed,
          // Every partition fetched at once, their batches handed over together: one transaction.
          partitionsConsumedConcurrently: TOPIC_PARTITIONS,
          mergePartitions: true,
          batchHandler: async (messages) => {
            const noticed = await noticesToQueue(envelopesOf(messages));
            if (noticed.length === 0) return;
            const handoff = worker.handoff();
            try {
              await sql.transaction((tx) => queueDeliveries(noticed, tx, handoff));
            } catch (error) {
              handoff.abort();
              throw error;
            }
            handoff.commit();
          },
        }),
      );
      await relay.start();
      worker.start();
      pruneTimer = setInterval(pruneEnds, settings.pruneIntervalMs);
      pruneTimer.unref();
      logger.info('webhook dispatcher started');
    },
    async stop() {
      clearInterval(pruneTimer);
      await pruning;
      for (const subscription of subscriptions.splice(0)) await subscription.close();
      await worker.stop();
      await stopListening?.();
      await relay.stop();
      sender.close();
    },
  };
}
