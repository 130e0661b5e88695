import type { WebhookDeliveryDeadLetteredData } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { IdlePoll } from '@vop/outbox';
import { handleRegistration } from '../registrations/command-handler.js';
import { RegistrationError } from '../registrations/decider.js';
import {
  claimDueDeliveries,
  pendingSummary,
  recordAttempts,
  releaseLeases,
  type AttemptRecord,
  type ClaimedDelivery,
  type LeasedDelivery,
} from './queue.js';
import { createGroupCommit } from './attempt-recorder.js';
import { nextAttemptAt, retryAfterMs, type RetryPolicy } from './schedule.js';
import { signedHeaders, signerFor, type SendResult, type Sender, type Signer } from './sender.js';

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
  /**
   * The look for due deliveries without a wake-up: this soon after work, doubling while it finds
   * nothing up to `SLOWEST_POLL_MS`. Queued deliveries are notified and a retry is looked for at its time.
   */
  pollIntervalMs: number;
  clock: () => Date;
  random: () => number;
}

/**
 * A claimed delivery is leased for twice the attempt's deadline and a second: an attempt ends at its
 * deadline, so a lease that runs out belongs to an instance that died, and another takes it over.
 */
const leaseMs = (attemptTimeoutMs: number): number => 2 * attemptTimeoutMs + 1_000;
/**
 * Deliveries an instance may hold leased (waiting in memory, or in flight) per slot of the bound:
 * a burst is leased in a few statements, not one claim per slot.
 */
const HELD_PER_SLOT = 32;
const SIGNER_TTL_MS = 60_000;
/**
 * An idle dispatcher's look at the queue: what it misses otherwise is a delivery another instance
 * redelivered or left leased when it died, and a retry another instance scheduled before it died.
 */
const SLOWEST_POLL_MS = 30_000;

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
  const claimFailed = loopFailureLog(logger, 'claiming webhook deliveries failed');
  const pollFailed = loopFailureLog(logger, 'webhook poll failed');
  const { sql, schema } = store;
  const metrics = deliveryMetrics(options.metrics);
  const running = new Set<Promise<void>>();
  let pumping = false;
  let again = false;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let timerDueAt = Number.POSITIVE_INFINITY;
  const idlePoll = new IdlePoll(
    options.pollIntervalMs,
    Math.max(options.pollIntervalMs, SLOWEST_POLL_MS),
  );
  /** A claim leased something (or failed) since the last poll: the next poll is soon. */
  let lookSoon = false;

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

  /**
   * Signers by registration: the secret is decrypted once, not per attempt. Dropped when this
   * instance disables or deletes the registration, when its stored secret changes, and after a
   * while (a registration deleted through another instance).
   */
  const signers = new Map<string, { stored: string; signer: Promise<Signer>; until: number }>();
  function signerOf(delivery: ClaimedDelivery): Promise<Signer> {
    const now = clock().getTime();
    const cached = signers.get(delivery.webhookId);
    if (cached && cached.stored === delivery.secret && cached.until > now) return cached.signer;
    const signer = options.revealSecret(delivery.secret).then(signerFor);
    signer.catch(() => signers.delete(delivery.webhookId));
    signers.set(delivery.webhookId, {
      stored: delivery.secret,
      signer,
      until: now + SIGNER_TTL_MS,
    });
    return signer;
  }

  /** `sent` is called once the receiver has answered (or not): its slot is free from then on. */
  async function attempt(delivery: ClaimedDelivery, sent: () => void): Promise<void> {
    const attemptedAt = clock();
    const signer = await signerOf(delivery);
    const headers = signedHeaders(signer, delivery.id, attemptedAt, delivery.payload);
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
    if (verdict.nextAttemptAt !== null) pollBy(verdict.nextAttemptAt.getTime());
  }

  async function disableGone(webhookId: string): Promise<void> {
    forget(webhookId);
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

  /**
   * What this instance holds for each registration: deliveries leased to it and not started yet
   * (`waiting`), attempts in flight, and leases being taken by a consuming transaction.
   */
  interface Lane {
    /** Attempts this instance may have in flight: the bound less the other instances' leases. */
    cap: number;
    waiting: LeasedDelivery[];
    inFlight: number;
    reserved: number;
  }
  const lanes = new Map<string, Lane>();
  const laneOf = (webhookId: string): Lane => {
    let lane = lanes.get(webhookId);
    if (!lane) {
      lane = { cap: options.endpointConcurrency, waiting: [], inFlight: 0, reserved: 0 };
      lanes.set(webhookId, lane);
    }
    return lane;
  };
  const dropIfIdle = (webhookId: string, lane: Lane) => {
    if (lane.waiting.length === 0 && lane.inFlight === 0 && lane.reserved === 0)
      lanes.delete(webhookId);
  };
  const heldBy = (lane: Lane) => lane.waiting.length + lane.inFlight + lane.reserved;
  const holdLimit = options.endpointConcurrency * HELD_PER_SLOT;
  const maxHeld = options.maxInFlight * HELD_PER_SLOT;
  /** Requests in flight to receivers (records may still be being written after). */
  let sending = 0;
  let held = 0;
  /** Whether due deliveries may be waiting unclaimed in the table. */
  let backlog = true;
  /** A lease with less left than this is not started: the attempt could outlive it. */
  const minLeaseLeftMs = options.attemptTimeoutMs + 1_000;

  /** Takes `leased` into its registration's lane, its cap from the other instances' leases. */
  function hold(leased: LeasedDelivery, heldElsewhere: number): void {
    const lane = laneOf(leased.webhookId);
    lane.cap = Math.max(1, options.endpointConcurrency - heldElsewhere);
    lane.waiting.push(leased);
    held++;
  }

  /** A registration disabled or deleted here: what this instance holds for it is not sent. */
  function forget(webhookId: string): void {
    signers.delete(webhookId);
    const lane = lanes.get(webhookId);
    if (!lane) return;
    held -= lane.waiting.length;
    lane.waiting = [];
    dropIfIdle(webhookId, lane);
  }

  /** Starts waiting deliveries while their registrations' caps and the instance's bound allow. */
  function launch(): void {
    // Stopping: what a claim still in progress leases is left to run out (at-least-once).
    if (stopped) return;
    for (const [webhookId, lane] of lanes) {
      while (lane.waiting.length > 0 && lane.inFlight < lane.cap && sending < options.maxInFlight) {
        const delivery = lane.waiting.shift() as LeasedDelivery;
        held--;
        // Left to run out: the claim loop takes it again then (here or elsewhere).
        if (delivery.leaseUntil.getTime() - clock().getTime() < minLeaseLeftMs) backlog = true;
        else run(delivery, lane);
      }
      dropIfIdle(webhookId, lane);
      if (sending >= options.maxInFlight) return;
    }
  }

  /**
   * Runs an attempt in its registration's lane. The slot (the bound on requests to one receiver) is
   * freed when the exchange ends; the record is written after, with others.
   */
  function run(delivery: ClaimedDelivery, lane: Lane): void {
    sending++;
    lane.inFlight++;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      sending--;
      lane.inFlight--;
      if (lane.waiting.length === 0 && lanes.get(delivery.webhookId) === lane)
        dropIfIdle(delivery.webhookId, lane);
      launch();
      if (backlog) wake();
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

  /**
   * Deliveries queued by this instance's consumer are leased to it in the transaction that queues
   * them and started from memory once it commits, with no claim query in between. What finds no
   * room here is left unleased for the claim loop.
   */
  function handoff() {
    const taken: string[] = [];
    const ready: { delivery: LeasedDelivery; heldElsewhere: number }[] = [];
    let leftOver = false;
    const release = (webhookIds: string[]) => {
      for (const webhookId of webhookIds) {
        const lane = laneOf(webhookId);
        lane.reserved--;
        held--;
        dropIfIdle(webhookId, lane);
      }
    };
    return {
      /**
       * A lease for a new delivery to this registration, or null when this instance holds all it
       * may, or the other instances' leases (`heldElsewhere`) fill the bound.
       */
      reserve(webhookId: string, heldElsewhere = 0): Date | null {
        const lane = laneOf(webhookId);
        const full =
          stopped ||
          held >= maxHeld ||
          heldBy(lane) >= holdLimit ||
          heldElsewhere >= options.endpointConcurrency;
        if (full) {
          leftOver = true;
          dropIfIdle(webhookId, lane);
          return null;
        }
        lane.reserved++;
        held++;
        taken.push(webhookId);
        return new Date(clock().getTime() + leaseMs(options.attemptTimeoutMs));
      },
      /** A reserved delivery that was queued (not a duplicate of one queued before). */
      queued(delivery: LeasedDelivery, heldElsewhere = 0): void {
        ready.push({ delivery, heldElsewhere });
      },
      /** After the commit: hold what was queued, free the other reservations, start what may. */
      commit(): void {
        release(taken);
        for (const { delivery, heldElsewhere } of ready) hold(delivery, heldElsewhere);
        launch();
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

  /** Claims due deliveries in bulk into the lanes, while this instance has room. */
  async function pump(): Promise<void> {
    do {
      again = false;
      while (!stopped && sending < options.maxInFlight) {
        const now = clock();
        // A claim tops a lane up to the bound: only what this instance consumed is held beyond it,
        // so instances share what they left over.
        const room = Object.fromEntries(
          [...lanes].map(([webhookId, lane]) => [
            webhookId,
            options.endpointConcurrency - heldBy(lane),
          ]),
        );
        const { claimed, heldElsewhere, due } = await claimDueDeliveries(sql, schema, {
          now,
          leaseUntil: new Date(now.getTime() + leaseMs(options.attemptTimeoutMs)),
          perWebhook: options.endpointConcurrency,
          room,
          defaultRoom: options.endpointConcurrency,
          // Caps lowered by other instances' leases are looked at again.
          refresh: [...lanes]
            .filter(([, lane]) => lane.cap < options.endpointConcurrency)
            .map(([webhookId]) => webhookId),
          owner: options.instanceId,
          limit: options.maxInFlight - sending,
        });
        for (const [webhookId, others] of heldElsewhere) {
          const lane = lanes.get(webhookId);
          if (lane) lane.cap = Math.max(1, options.endpointConcurrency - others);
        }
        if (claimed.length > 0) lookSoon = true;
        for (const delivery of claimed) hold(delivery, heldElsewhere.get(delivery.webhookId) ?? 0);
        launch();
        // Due deliveries left for want of room are claimed as slots free up.
        backlog = due > 0;
        if (claimed.length === 0) break;
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
      .catch((error: unknown) => {
        lookAgainSoon();
        claimFailed(error);
      })
      .finally(() => {
        pumping = false;
      });
  }

  /** The next poll at `at` (epoch ms) at the latest. */
  function pollBy(at: number): void {
    if (stopped || at >= timerDueAt) return;
    clearTimeout(timer);
    timerDueAt = at;
    const fire = (): void => {
      // A timer counts from the event loop's cached time, so under load it fires some ms before `at`
      // by the clock the claims use: a retry looked for then is not due yet, and would wait for the
      // next poll (an hour in retry-timer.test.ts).
      const early = at - clock().getTime();
      if (early > 0) {
        timer = setTimeout(fire, early);
        return;
      }
      timerDueAt = Number.POSITIVE_INFINITY;
      poll().catch(pollFailed);
    };
    timer = setTimeout(fire, Math.max(0, at - Date.now()));
  }

  /** A claim or a look failed (the database?): looks stay at the fastest until one succeeds. */
  function lookAgainSoon(): void {
    lookSoon = true;
    pollBy(Date.now() + options.pollIntervalMs);
  }

  async function poll(): Promise<void> {
    wake();
    if (lookSoon) idlePoll.snapBack();
    lookSoon = false;
    const now = Date.now();
    pollBy(now + idlePoll.next());
    const { count, nextDueAt } = await pendingSummary(sql, schema).catch((error: unknown) => {
      lookAgainSoon();
      throw error;
    });
    metrics?.queueDepth.set(count);
    // Due already but not claimed (no room, a slot held elsewhere): the fastest poll, not a spin.
    if (nextDueAt !== undefined)
      pollBy(Math.max(nextDueAt.getTime(), Date.now() + options.pollIntervalMs));
  }

  return {
    wake,
    handoff,
    forget,
    start(): void {
      stopped = false;
      poll().catch(pollFailed);
    },
    /** Stops claiming and waits for the attempts in flight (each ends by its timeout). */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      timerDueAt = Number.POSITIVE_INFINITY;
      const unstarted = [...lanes.values()].flatMap((lane) => lane.waiting.splice(0));
      held = 0;
      // Given back at once, so another instance need not wait for the leases to run out.
      await releaseLeases(sql, schema, {
        deliveryIds: unstarted.map((delivery) => delivery.id),
        owner: options.instanceId,
      }).catch((error: unknown) => logger.warn({ err: error }, 'webhook leases not given back'));
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
export type DeliveryHandoff = ReturnType<DeliveryWorker['handoff']>;
