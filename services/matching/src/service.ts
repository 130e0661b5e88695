import {
  type AccountCopyAtCommit,
  AccountProjection,
  recordDecision,
  roundDecisions,
  type RoundDecisions,
} from '@vop/verifications';
import type { NameMatcher } from '@vop/name-matching';
import { routeIntegrationEvent, TOPIC_PARTITIONS, topicNames } from '@vop/contracts';
import { EventStore, type SqlClient } from '@vop/event-store';
import type {
  Bus,
  ContentionPacer,
  IncomingMessage,
  PriorityGate,
  Subscription,
} from '@vop/messaging';
import {
  OutboxRelay,
  SHARED_THREAD_BATCH_RELAY_PAGE,
  relayReadiness,
  registerLagMetrics,
  serviceHealth,
  type ServiceHealth,
  logHandlerError,
  migrateInbox,
  parseEnvelope,
} from '@vop/outbox';
import { createPersonalData } from '@vop/personal-data';
import { loopFailureLog } from '@vop/http';
import { closeQuietly, startInOrder } from '@vop/lifecycle';
import type { Logger, ServiceMetrics } from '@vop/observability';
import type { Router } from 'express';
import { explainRoutes } from './explain/routes.js';

export const MATCHING_SCHEMA = 'matching';

/** How `decidedAtRecording` reads in a published request (packages/contracts/src/events/verifications.ts). */
const DECIDED_MARK = '"decidedAtRecording":true';

export interface MatchingServiceOptions {
  /** VOP_INSTANCE_ID: a restarted process of the same instance takes its outbox lease at once. */
  instanceId?: string;
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  matcher: NameMatcher;
  schema?: string;
  /** Prefix of topics and consumer groups (VOP_KAFKA_NAMESPACE). */
  namespace?: string;
  metrics?: ServiceMetrics;
  /** Where the subject keys live (the gateway's database in distributed mode); default: `sql`. */
  keySql?: SqlClient;
  clock?: () => Date;
  /** Embedded: single checks before batch entries, through the gate the whole process shares. */
  priorityGate?: PriorityGate;
  /**
   * What this process consumes (VOP_MATCHING_ROLES): `single` (single checks, the account projection,
   * their outbox) and `batch` (batch entries, their outbox); default both.
   */
  roles?: ReadonlySet<MatchingRole>;
  /** Distributed: batch entries' units rest while this process waits for a CPU (`ContentionPacer`). */
  batchPacer?: ContentionPacer;
  /**
   * Embedded: the copy of the accounts another service of this process keeps (migrates, writes at
   * commit, consumes): requests are decided against it, and this service keeps no copy of its own.
   */
  sharedAccountCopy?: AccountProjection;
}

export type MatchingRole = 'single' | 'batch';

export interface MatchingService {
  readonly store: EventStore;
  /**
   * Its copy of the accounts, for a writer that shares its database to write at commit; none when it
   * decides against a shared copy.
   */
  readonly accountCopyAtCommit: AccountCopyAtCommit | undefined;
  /** The routes of the families this service owns, served behind the gateway's edge. */
  readonly routers: Router[];
  /** Database, Kafka, consumer lag and outbox lag (GET /health/detailed). */
  health(): Promise<ServiceHealth>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Throws while the service cannot yet answer (its outbox relay has not settled its lease). */
  checkReady(): Promise<void>;
}

/**
 * Consumes account events and verification requests; emits verification completions through its
 * outbox. Single checks and batch entries are decided where they are recorded (the gateway, the batch
 * service: @vop/verifications); this service decides a request that came undecided (a recorder set to
 * leave it to matching, a copy of the accounts still filling, an older release).
 */
export function createMatchingService(options: MatchingServiceOptions): MatchingService {
  const { sql, bus, logger, matcher } = options;
  const schema = options.schema ?? MATCHING_SCHEMA;
  const namespace = options.namespace ?? '';
  const topics = topicNames(namespace);
  const store = new EventStore(sql, { schema });
  // Batch entries' completions in a store (and outbox) of their own: a single check's completion is
  // never published behind thousands of a batch's (the relay publishes its store in order).
  const batchStore = new EventStore(sql, { schema: `${schema}_batch` });
  const { keys, cipher } = createPersonalData(options.keySql ?? sql);
  const accounts =
    options.sharedAccountCopy ??
    new AccountProjection({
      sql,
      bus,
      logger,
      schema,
      groupId: `${namespace}matching-accounts`,
      topic: topics.accountEvents,
      ...(options.metrics && { metrics: options.metrics }),
    });
  // Only a copy of its own is migrated, written at commit and consumed here.
  const ownCopy = accounts === options.sharedAccountCopy ? undefined : accounts;
  const decisionsFor = (completions: EventStore) =>
    roundDecisions({
      store: completions,
      accountsSchema: accounts.schema,
      accountCache: accounts.cache,
      matcher,
      cipher,
      clock: options.clock ?? (() => new Date()),
      ...(options.metrics && { onDecided: recordDecision(options.metrics) }),
      onUndecidable: (verificationId, error) =>
        // The error's message may quote the names compared: only its kind is logged.
        logger.error(
          { errorName: error instanceof Error ? error.name : typeof error, verificationId },
          'verification could not be decided; it ends as failed',
        ),
    });
  const relayFor = (completions: EventStore, name: string, pageSize?: number) =>
    new OutboxRelay({
      store: completions,
      bus,
      name,
      ...(pageSize !== undefined && { batchSize: pageSize }),
      ...(options.instanceId !== undefined && { instanceId: `matching-${options.instanceId}` }),
      route: (event) => routeIntegrationEvent(topics, event),
      onError: loopFailureLog(logger, 'matching outbox relay failed; retrying', { relay: name }),
    });
  const decisions = decisionsFor(store);
  const subscriptions: Subscription[] = [];
  const gate = options.priorityGate;
  const pacer = gate ? undefined : options.batchPacer;
  const roles = options.roles ?? new Set<MatchingRole>(['single', 'batch']);
  const groups = {
    singles: {
      groupId: `${namespace}matching-verifications`,
      topics: [topics.verificationRequested],
    },
    batchEntries: {
      groupId: `${namespace}matching-batch-verifications`,
      topics: [topics.verificationRequestedBatch],
    },
  };
  /** What each role consumes and relays; health, lag metrics, readiness, start and stop follow it. */
  const roleParts: Record<
    MatchingRole,
    {
      consumers: { groupId: string; topics: string[] }[];
      outbox: { store: EventStore; relayName: string; pageSize?: number };
    }
  > = {
    single: {
      consumers: [...(ownCopy ? [ownCopy.group] : []), groups.singles],
      outbox: { store, relayName: 'matching-outbox' },
    },
    batch: {
      consumers: [groups.batchEntries],
      outbox: {
        store: batchStore,
        relayName: 'matching-batch-outbox',
        ...(options.priorityGate && { pageSize: SHARED_THREAD_BATCH_RELAY_PAGE }),
      },
    },
  };
  const parts = [...roles].map((role) => roleParts[role]);
  const relays = parts.map(({ outbox }) =>
    relayFor(outbox.store, outbox.relayName, outbox.pageSize),
  );
  /**
   * Decides a delivered batch of requests, then appends their ends in one statement that skips a
   * request whose end exists (delivered again): no processed ids, no transaction, one round trip.
   */
  const decideBatchOf =
    (decisions: RoundDecisions) =>
    async (messages: IncomingMessage[]): Promise<void> => {
      const envelopes = messages.map(parseEnvelope);
      await decisions.recordDelivered(await decisions.decide(envelopes), envelopes);
    };

  /**
   * A request decided and recorded with its end (gateway, batch service) travels on the `.decided`
   * twin topic, which matching does not read. One still arrives here if a recorder of the release
   * before the twins published it (during a rolling upgrade): it is dropped without being parsed. The mark is a top-level field of the data; a quote inside a JSON string is escaped (`\"`), so no
   * string value can contain the key as written here, and the recorders' schemas keep no unknown keys.
   */
  const undecided = (messages: IncomingMessage[]): IncomingMessage[] =>
    messages.filter((message) => !message.value.includes(DECIDED_MARK));

  const healthSources = {
    service: 'matching',
    sql,
    bus,
    topics: parts
      .flatMap(({ consumers }) => consumers.flatMap((group) => group.topics))
      .map((name) => ({ name, partitions: TOPIC_PARTITIONS })),
    consumers: () => parts.flatMap(({ consumers }) => consumers),
    outboxes: parts.map(({ outbox }) => outbox),
  };
  if (options.metrics) registerLagMetrics(options.metrics, healthSources);

  return {
    store,
    accountCopyAtCommit: ownCopy?.atCommit(),
    routers: [explainRoutes(matcher)],
    checkReady: async () => {
      for (const started of relays) await relayReadiness(started);
    },
    health: () => serviceHealth(healthSources),
    async start() {
      await startInOrder([
        { start: prepare },
        { start: subscribe, stop: () => closeQuietly(subscriptions) },
        { start: startRelays },
      ]);
    },
    async stop() {
      for (const subscription of subscriptions.splice(0)) await subscription.close();
      for (const started of relays) await started.stop();
      pacer?.stop();
      await ownCopy?.stop();
    },
  };

  async function prepare(): Promise<void> {
    await store.migrate();
    await batchStore.migrate();
    await migrateInbox(sql, schema);
    await ownCopy?.migrate();
    await keys.migrate();
    await ownCopy?.listen();
    await bus.ensureTopics(
      Object.values(topics).map((name) => ({ name, partitions: TOPIC_PARTITIONS })),
    );
  }

  // Subscriptions are pushed one by one, so a start that fails half-way can close what it opened and
  // be retried.
  async function subscribe(): Promise<void> {
    if (roles.has('single')) await startSingleChecks();
    if (roles.has('batch')) await startBatchEntries();
  }

  async function startRelays(): Promise<void> {
    for (const started of relays) await started.start();
    logger.info({ roles: [...roles] }, 'matching service started');
  }

  async function startSingleChecks(): Promise<void> {
    if (ownCopy) subscriptions.push(await ownCopy.subscribe());
    const decideAll = decideBatchOf(decisions);
    const decideSingles = async (messages: IncomingMessage[]): Promise<void> => {
      const left = undecided(messages);
      if (left.length > 0) await decideAll(left);
    };
    subscriptions.push(
      await bus.subscribe({
        ...groups.singles,
        onHandlerError: logHandlerError(logger, 'verification-decisions'),
        partitionsConsumedConcurrently: 8,
        // One round decided and one statement for what several partitions fetched at once.
        mergePartitions: true,
        batchHandler: gate ? (messages) => gate.high(() => decideSingles(messages)) : decideSingles,
      }),
    );
  }

  async function startBatchEntries(): Promise<void> {
    pacer?.start();
    // Batch entries: their own topic and group. In its own process (distributed), two partitions at a
    // time in units of 100. With a priority gate (embedded: one thread, one PGlite connection), units
    // of 50 through it, one at a time, at a bounded share while single checks come. A gate measured
    // 3.5 times slower batches and no better single checks distributed (bench/RESULTS.md §4).
    const decideAllEntries = decideBatchOf(decisionsFor(batchStore));
    const decideBatchEntries = async (messages: IncomingMessage[]): Promise<void> => {
      const left = undecided(messages);
      if (left.length > 0) await decideAllEntries(left);
    };
    subscriptions.push(
      await bus.subscribe({
        ...groups.batchEntries,
        onHandlerError: logHandlerError(logger, 'batch-verification-decisions'),
        partitionsConsumedConcurrently: 2,
        maxBatchSize: gate ? 50 : 100,
        batchHandler: gate
          ? (messages) => gate.low(() => decideBatchEntries(messages))
          : pacer
            ? (messages) => pacer.run(() => decideBatchEntries(messages))
            : decideBatchEntries,
      }),
    );
  }
}
