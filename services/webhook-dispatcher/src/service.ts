import { randomUUID } from 'node:crypto';
import {
  TOPIC_PARTITIONS,
  topicNames,
  WebhookDeliveryDeadLettered,
  type IntegrationEnvelope,
  type WebhookEventName,
} from '@vop/contracts';
import { EventStore, type SqlClient, type SqlExecutor } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { OutboxRelay, idempotentBatchHandler, logHandlerError, migrateInbox } from '@vop/outbox';
import type { Router } from 'express';
import { createAddressGuard } from './address-guard/address-guard.js';
import { webhookNoticeFor } from './deliveries/payload.js';
import { enqueueDeliveries, migrateDeliveries, type NewDelivery } from './deliveries/queue.js';
import { deliveryRoutes } from './deliveries/routes.js';
import { createSender } from './deliveries/sender.js';
import { createDeliveryWorker } from './deliveries/worker.js';
import { migrateRegistrations } from './registrations/read-model.js';
import { registrationRoutes } from './registrations/routes.js';
import type { WebhookSettings } from './settings.js';

export const WEBHOOK_SCHEMA = 'webhooks';
const QUEUED_CHANNEL = 'webhooks_deliveries_queued';
/** Retry-After is honoured up to the schedule's longest default wait. */
const MAX_RETRY_AFTER_MS = 10 * 60 * 60 * 1000;

export interface WebhookDispatcherOptions {
  sql: SqlClient;
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

/** Enabled registrations of the participants in a batch of notices, by participant. */
async function subscriptionsOf(
  tx: SqlExecutor,
  schema: string,
  participants: string[],
): Promise<Map<string, { id: string; events: WebhookEventName[] }[]>> {
  const { rows } = await tx.query<{ id: string; participant: string; events: WebhookEventName[] }>(
    `SELECT id, participant, events FROM ${schema}.registrations
     WHERE enabled AND participant IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    [JSON.stringify(participants)],
  );
  const byParticipant = new Map<string, { id: string; events: WebhookEventName[] }[]>();
  for (const row of rows)
    byParticipant.set(row.participant, [...(byParticipant.get(row.participant) ?? []), row]);
  return byParticipant;
}

/**
 * Consumes verification completions and batch completions, queues one delivery per matching
 * registration of the event's participant (in the transaction that records the event as
 * processed), and delivers them with signed, retried attempts. Dead letters go out on the
 * webhook dead-letter topic through this service's outbox.
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
  const worker = createDeliveryWorker({
    store,
    sender,
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
    name: 'webhook-dead-letters',
    route: (event) =>
      event.type === 'WebhookDeliveryDeadLettered'
        ? {
            topic: topics.webhookDeadLetters,
            key: WebhookDeliveryDeadLettered.parse(event).data.webhookId,
          }
        : null,
    onError: (error) => logger.warn({ err: error }, 'webhook outbox relay failed; retrying'),
  });
  const subscriptions: Subscription[] = [];
  let stopListening: (() => Promise<void>) | undefined;

  async function queueDeliveries(envelopes: IntegrationEnvelope[], tx: SqlExecutor) {
    const notices = envelopes.flatMap((envelope) => {
      const notice = webhookNoticeFor(envelope);
      return notice ? [{ envelope, notice }] : [];
    });
    if (notices.length === 0) return;
    const subscriptions = await subscriptionsOf(tx, schema, [
      ...new Set(notices.map(({ notice }) => notice.participant)),
    ]);
    const deliveries: NewDelivery[] = notices.flatMap(({ envelope, notice }) =>
      (subscriptions.get(notice.participant) ?? [])
        .filter((registration) => registration.events.includes(notice.event))
        .map((registration) => ({
          id: randomUUID(),
          webhookId: registration.id,
          sourceEventId: envelope.eventId,
          eventType: notice.event,
          payload: JSON.stringify(notice.payload),
        })),
    );
    if ((await enqueueDeliveries(tx, schema, deliveries, clock())) > 0)
      await sql.notify(QUEUED_CHANNEL, tx);
  }

  return {
    store,
    routers: [
      // The dead-letter list is mounted before /webhooks/{id} would take "dead-letters" as an id.
      deliveryRoutes({ store, clock, onRedelivery: () => worker.wake() }),
      registrationRoutes({ store, guard, clock }),
    ],
    async start() {
      await store.migrate();
      await migrateInbox(sql, schema);
      await migrateRegistrations(sql, schema);
      await migrateDeliveries(sql, schema);
      await bus.ensureTopics(
        [topics.verificationCompleted, topics.batchEvents, topics.webhookDeadLetters].map(
          (name) => ({ name, partitions: TOPIC_PARTITIONS }),
        ),
      );
      stopListening = await sql.listen(QUEUED_CHANNEL, () => worker.wake());
      const handle = idempotentBatchHandler({
        sql,
        schema,
        consumer: 'webhook-deliveries',
        applyBatch: queueDeliveries,
      });
      subscriptions.push(
        await bus.subscribe({
          groupId: `${namespace}webhook-dispatcher`,
          onHandlerError: logHandlerError(logger, 'webhook-deliveries'),
          topics: [topics.verificationCompleted, topics.batchEvents],
          partitionsConsumedConcurrently: 4,
          batchHandler: async (messages) => {
            await handle(messages);
            worker.wake();
          },
        }),
      );
      await relay.start();
      worker.start();
      logger.info('webhook dispatcher started');
    },
    async stop() {
      for (const subscription of subscriptions.splice(0)) await subscription.close();
      await worker.stop();
      await stopListening?.();
      await relay.stop();
      sender.close();
    },
  };
}
