import type { WebhookDeliveryDeadLetteredData } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { handleRegistration } from '../registrations/handler.js';
import { RegistrationError } from '../registrations/decider.js';
import {
  claimDueDeliveries,
  pendingCount,
  recordAttempts,
  type AttemptRecord,
  type ClaimedDelivery,
} from './queue.js';
import { createGroupCommit } from './attempt-recorder.js';
import { nextAttemptAt, retryAfterMs, type RetryPolicy } from './schedule.js';
import { signedHeaders, type SendResult, type Sender } from './sender.js';

export interface DeliveryWorkerOptions {
  store: EventStore;
  sender: Sender;
  /** This instance, as the owner of the leases it takes. */
  instanceId: string;
  /** The signing secret from its stored (encrypted) form. */
  revealSecret: (stored: string) => Promise<string>;
  logger: Logger;
  metrics?: ServiceMetrics | undefined;
  policy: RetryPolicy;
  attemptTimeoutMs: number;
  endpointConcurrency: number;
  maxInFlight: number;
  pollIntervalMs: number;
  clock: () => Date;
  random: () => number;
}

/**
 * A claimed delivery is leased for twice the attempt's deadline and a second: an attempt ends at its
 * deadline, so a lease that runs out belongs to an instance that died, and another takes it over.
 */
const leaseMs = (attemptTimeoutMs: number): number => 2 * attemptTimeoutMs + 1_000;

function deliveryMetrics(metrics: ServiceMetrics | undefined) {
  if (!metrics) return undefined;
  return {
    attempts: metrics.counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'] as const,
    }),
    deliveries: metrics.counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook deliveries finished, by final status',
      labelNames: ['status'] as const,
    }),
    latency: metrics.histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Time from sending a webhook to the receiver’s answer (or the timeout)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
    queueDepth: metrics.gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook deliveries waiting for an attempt (due or scheduled)',
    }),
    deadLetters: metrics.counter({
      name: 'webhook_dead_letters_total',
      help: 'Webhook deliveries that used their last attempt',
    }),
  };
}

/** What one attempt's result means: outcome, and what becomes of the delivery. */
function judge(
  result: SendResult,
  delivery: ClaimedDelivery,
  options: DeliveryWorkerOptions,
  now: Date,
): Pick<AttemptRecord, 'statusCode' | 'outcome' | 'error' | 'status' | 'nextAttemptAt'> {
  if (result.kind === 'response' && result.statusCode >= 200 && result.statusCode < 300)
    return {
      statusCode: result.statusCode,
      outcome: 'delivered',
      status: 'delivered',
      nextAttemptAt: null,
    };
  if (result.kind === 'response' && result.statusCode === 410)
    return { statusCode: 410, outcome: 'gone', status: 'endpoint_gone', nextAttemptAt: null };
  const next = nextAttemptAt({
    attemptsMade: delivery.attempts + 1,
    now,
    policy: options.policy,
    random: options.random(),
    retryAfterMs: result.kind === 'response' ? retryAfterMs(result.retryAfter, now) : undefined,
  });
  const failure =
    result.kind === 'response'
      ? { statusCode: result.statusCode, outcome: 'http_error' as const }
      : { statusCode: null, outcome: result.kind, error: result.error };
  return next === null
    ? { ...failure, status: 'dead_lettered', nextAttemptAt: null }
    : { ...failure, status: 'pending', nextAttemptAt: next };
}

/**
 * Sends due deliveries: claims them with a lease, signs each attempt, records it and schedules the
 * next one, within a bound per registration (a slow receiver holds only its own slots) and in all.
 * Woken when deliveries are queued, and polling for retries that come due.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions) {
  const { store, sender, logger, clock } = options;
  const { sql, schema } = store;
  const metrics = deliveryMetrics(options.metrics);
  const perWebhook = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let pumping = false;
  let again = false;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;

  const deadLetterOf = (
    delivery: ClaimedDelivery,
    record: AttemptRecord,
  ): WebhookDeliveryDeadLetteredData => ({
    deliveryId: delivery.id,
    webhookId: delivery.webhookId,
    participant: delivery.participant,
    eventType: delivery.eventType,
    sourceEventId: delivery.sourceEventId,
    attempts: delivery.attempts + 1,
    lastStatusCode: record.statusCode,
    lastOutcome: record.outcome,
    deadLetteredAt: record.attemptedAt.toISOString(),
  });

  /** Attempts that finished together are recorded in one transaction, dead letters with them. */
  const recorder = createGroupCommit<{ delivery: ClaimedDelivery; record: AttemptRecord }>(
    (finished) =>
      sql.transaction(async (tx) => {
        await recordAttempts(
          tx,
          schema,
          finished.map(({ record }) => record),
        );
        for (const { delivery, record } of finished) {
          if (record.status !== 'dead_lettered') continue;
          await store.append(
            `webhook-delivery-${delivery.id}`,
            [{ type: 'WebhookDeliveryDeadLettered', data: deadLetterOf(delivery, record) }],
            { expectedVersion: 'any', tx },
          );
        }
      }),
  );

  /** `sent` is called once the receiver has answered (or not): its slot is free from then on. */
  async function attempt(delivery: ClaimedDelivery, sent: () => void): Promise<void> {
    const attemptedAt = clock();
    const secret = await options.revealSecret(delivery.secret);
    const headers = signedHeaders(secret, delivery.id, attemptedAt, delivery.payload);
    const started = performance.now();
    const result = await sender.send(delivery.url, headers, delivery.payload);
    const latencyMs = Math.round(performance.now() - started);
    sent();
    const verdict = judge(result, delivery, options, clock());
    const record: AttemptRecord = { deliveryId: delivery.id, attemptedAt, latencyMs, ...verdict };
    await recorder.record({ delivery, record });
    metrics?.attempts.inc({ outcome: verdict.outcome });
    metrics?.latency.observe(latencyMs / 1000);
    if (verdict.status !== 'pending') metrics?.deliveries.inc({ status: verdict.status });
    if (verdict.status === 'dead_lettered') metrics?.deadLetters.inc();
    if (verdict.status === 'endpoint_gone') await disableGone(delivery.webhookId);
  }

  async function disableGone(webhookId: string): Promise<void> {
    try {
      await handleRegistration(store, webhookId, {
        type: 'DisableWebhook',
        data: { webhookId, reason: 'the receiver answered 410 Gone', now: clock() },
      });
      logger.info({ webhookId }, 'webhook disabled: the receiver answered 410');
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
    }
  }

  let reserved = 0;
  /** Requests in flight to receivers (records may still be being written after). */
  let sending = 0;
  /** Whether due deliveries may be waiting unclaimed (finished attempts then look for more). */
  let backlog = true;

  const take = (webhookId: string) =>
    perWebhook.set(webhookId, (perWebhook.get(webhookId) ?? 0) + 1);
  const give = (webhookId: string) => {
    const left = (perWebhook.get(webhookId) ?? 1) - 1;
    if (left === 0) perWebhook.delete(webhookId);
    else perWebhook.set(webhookId, left);
  };

  /**
   * Runs an attempt in a slot already taken for its registration. The slot (the bound on requests
   * to one receiver) is freed when the exchange ends; the record is written after, with others.
   */
  function run(delivery: ClaimedDelivery): void {
    sending++;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      sending--;
      const wasFull = (perWebhook.get(delivery.webhookId) ?? 0) >= options.endpointConcurrency;
      give(delivery.webhookId);
      if (backlog || wasFull) wake();
    };
    const task = attempt(delivery, free)
      .catch((error: unknown) =>
        // The lease runs out and the delivery is tried again: nothing is lost.
        logger.warn({ err: error, deliveryId: delivery.id }, 'webhook attempt not recorded'),
      )
      .finally(() => {
        free();
        running.delete(task);
      });
    running.add(task);
  }

  function launch(delivery: ClaimedDelivery): void {
    take(delivery.webhookId);
    run(delivery);
  }

  /**
   * Deliveries queued by this instance's consumer go straight to a free slot: leased in the
   * transaction that queues them, started once it commits, with no claim query in between. What finds
   * no free slot is left unleased for the claim loop.
   */
  function handoff() {
    const taken: string[] = [];
    const ready: ClaimedDelivery[] = [];
    let leftOver = false;
    const release = (webhookIds: string[]) => {
      for (const webhookId of webhookIds) give(webhookId);
      reserved -= webhookIds.length;
    };
    return {
      /**
       * A lease for a new delivery to this registration, or null when no slot is free here or, with
       * the attempts other instances hold (`heldElsewhere`), in all.
       */
      reserve(webhookId: string, heldElsewhere = 0): Date | null {
        const full =
          stopped ||
          sending + reserved >= options.maxInFlight ||
          (perWebhook.get(webhookId) ?? 0) + heldElsewhere >= options.endpointConcurrency;
        if (full) {
          leftOver = true;
          return null;
        }
        take(webhookId);
        reserved++;
        taken.push(webhookId);
        return new Date(clock().getTime() + leaseMs(options.attemptTimeoutMs));
      },
      /** A reserved delivery that was queued (not a duplicate of one queued before). */
      queued(delivery: ClaimedDelivery): void {
        ready.push(delivery);
      },
      /** After the commit: start what was queued, free the other reservations. */
      commit(): void {
        const started = new Map<string, number>();
        for (const delivery of ready)
          started.set(delivery.webhookId, (started.get(delivery.webhookId) ?? 0) + 1);
        const unused = taken.filter((webhookId) => {
          const left = started.get(webhookId) ?? 0;
          if (left === 0) return true;
          started.set(webhookId, left - 1);
          return false;
        });
        release(unused);
        reserved -= ready.length;
        for (const delivery of ready) run(delivery);
        if (leftOver) {
          backlog = true;
          wake();
        }
      },
      abort(): void {
        release(taken);
      },
    };
  }

  async function pump(): Promise<void> {
    do {
      again = false;
      while (!stopped && sending + reserved < options.maxInFlight) {
        const now = clock();
        const claimed = await claimDueDeliveries(sql, schema, {
          now,
          leaseUntil: new Date(now.getTime() + leaseMs(options.attemptTimeoutMs)),
          perWebhook: options.endpointConcurrency,
          inFlight: Object.fromEntries(perWebhook),
          owner: options.instanceId,
          limit: options.maxInFlight - sending - reserved,
        });
        if (claimed.length === 0) {
          backlog = false;
          break;
        }
        for (const delivery of claimed) launch(delivery);
      }
    } while (again && !stopped);
  }

  /** Looks for due deliveries now (coalesced: one claim loop at a time). */
  function wake(): void {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    pump()
      .catch((error: unknown) => logger.warn({ err: error }, 'claiming webhook deliveries failed'))
      .finally(() => {
        pumping = false;
      });
  }

  async function poll(): Promise<void> {
    wake();
    if (metrics) metrics.queueDepth.set(await pendingCount(sql, schema));
  }

  return {
    wake,
    handoff,
    start(): void {
      stopped = false;
      timer = setInterval(() => {
        poll().catch((error: unknown) => logger.warn({ err: error }, 'webhook poll failed'));
      }, options.pollIntervalMs);
      wake();
    },
    /** Stops claiming and waits for the attempts in flight (each ends by its timeout). */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
export type DeliveryHandoff = ReturnType<DeliveryWorker['handoff']>;
