import { randomUUID } from 'node:crypto';
import { routeIntegrationEvent, TOPIC_PARTITIONS, topicNames } from '@vop/contracts';
import { EventStore, type SqlClient } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Bus, ContentionPacer, PriorityGate, Subscription } from '@vop/messaging';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { OutboxRelay, registerLagMetrics, SHARED_THREAD_BATCH_RELAY_PAGE } from '@vop/outbox';
import {
  type AccountCopyAtCommit,
  copiesAtCommit,
  countParticipantAnswers,
  decisionAccountCopy,
  decisionsAgainst,
  type AccountProjection,
} from '@vop/verifications';
import type { NameMatcher } from '@vop/name-matching';
import { createPersonalData } from '@vop/personal-data';
import type { Router } from 'express';
import { batchCommands } from './batches/command-handler.js';
import { entryDecisions } from './batches/entry-decisions.js';
import { createEntryBudget, type EntryBudgetSettings } from './batches/entry-budget.js';
import { fanOutWorker } from './batches/fan-out.js';
import { migrateBatchSchema } from './migrate.js';
import { progressGroupId, subscribeToBatchProgress } from './batches/progress-consumer.js';
import { batchRoutes } from './batches/routes.js';
import { subscribeToDomesticAccounts } from './domestic-accounts/consumer.js';
import { domesticAccountsAtCommit } from './domestic-accounts/copy-at-commit.js';
import { projectDomesticAccounts } from './domestic-accounts/read-model.js';

export const BATCH_SCHEMA = 'batch';
const RELAY_NAME = 'batch-outbox';

export interface BatchServiceOptions {
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  schema?: string;
  /** Prefix of topics and consumer groups (VOP_KAFKA_NAMESPACE). */
  namespace?: string;
  metrics?: ServiceMetrics;
  /** Where the subject keys live (the gateway's database in distributed mode); default: `sql`. */
  keySql?: SqlClient;
  /** Live deployments draw batch entries from the participant's live budget (entry-budget.ts). */
  entryBudget?: EntryBudgetSettings;
  clock?: () => Date;
  newId?: () => string;
  /**
   * Embedded: single checks before batch work, through the gate the whole process shares. The
   * fan-out runs through its low side, in chunks of 100 requests (1,000 without a gate).
   */
  priorityGate?: PriorityGate;
  /**
   * Distributed: the fan-out's chunks rest while this (niced) process waits for a CPU, so the work
   * they hand PostgreSQL and the broker follows what the single checks leave (`ContentionPacer`).
   */
  pacer?: ContentionPacer;
  /**
   * Where batch entries are decided (VOP_BATCH_ENTRIES_DECIDED_BY): `batch` (default) in the
   * transaction that fans them out, against this service's own copy of the accounts, with `matcher`
   * (default: the scheme's); `matching` over the bus.
   */
  entriesDecidedBy?: 'batch' | 'matching';
  /**
   * An entry whose account this service's copy does not hold: sent to the requesting side (the
   * gateway asks the payee's bank, or decides it as ours), the default; or answered NOAP here.
   */
  unheldEntries?: 'payee-bank' | 'noap';
  matcher?: NameMatcher;
  /**
   * Embedded: the copy of the accounts another service of this process keeps (migrates, writes at
   * commit, consumes): entries are decided against it, and this service keeps no copy of its own.
   */
  sharedAccountCopy?: AccountProjection;
}

export interface BatchService {
  readonly store: EventStore;
  /** Its copies of the accounts, for a writer that shares its database (embedded) to write at commit. */
  readonly accountCopyAtCommit: AccountCopyAtCommit;
  readonly routers: Router[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Throws until its copy of the accounts has once caught up (entries are decided against it). */
  checkReady(): Promise<void>;
}

/** Accepts batches, fans their entries out as verification requests, tracks progress, serves results. */
export function createBatchService(options: BatchServiceOptions): BatchService {
  const { sql, bus, logger } = options;
  const schema = options.schema ?? BATCH_SCHEMA;
  const namespace = options.namespace ?? '';
  const topics = topicNames(namespace);
  const clock = options.clock ?? (() => new Date());
  const store = new EventStore(sql, { schema });
  const { keys, cipher } = createPersonalData(options.keySql ?? sql);
  const entryBudget =
    options.entryBudget && createEntryBudget({ sql, schema, settings: options.entryBudget });
  const gate = options.priorityGate;
  const pacer = options.pacer;
  // Embedded, chunks small enough that a single check waits behind one for a few milliseconds.
  const fanOutChunkSize = gate ? 100 : 1000;
  const answered = options.metrics?.counter({
    name: 'batch_entries_answered_total',
    help: 'Batch entries answered (batch progress)',
    labelNames: [] as const,
  });
  const onAnswered = answered && ((count: number) => answered.inc(count));
  // Form 1 entries of accounts the bank does not hold are judged NOAP here, without a decider.
  const countAnswers = options.metrics && countParticipantAnswers(options.metrics);
  const onEntriesJudged =
    countAnswers &&
    ((participant: string, judgements: readonly { outcome: string }[]) => {
      for (const { outcome } of judgements)
        countAnswers({ participant, channel: 'batch', outcome });
    });
  // Entries are decided in the transaction that fans them out, against this service's own copy of
  // the accounts (docs/architecture.md, "Where a single check is decided"): no round trip through
  // Kafka and matching, and the entries are answered in that transaction.
  const unheldToPayeeBank = (options.unheldEntries ?? 'payee-bank') === 'payee-bank';
  const decidedAgainst =
    (options.entriesDecidedBy ?? 'batch') === 'batch'
      ? (options.sharedAccountCopy ??
        decisionAccountCopy({
          store,
          bus,
          logger,
          group: `${namespace}batch-decision-accounts`,
          topic: topics.accountEvents,
          ...(options.metrics && { metrics: options.metrics }),
          alongside: (tx, events) => projectDomesticAccounts(tx, schema, events),
        }))
      : undefined;
  // Only a copy of its own is migrated, written at commit and consumed here.
  const ownCopy = decidedAgainst === options.sharedAccountCopy ? undefined : decidedAgainst;
  const deciding = decidedAgainst && {
    accounts: decidedAgainst,
    decisions: decisionsAgainst(decidedAgainst, {
      store,
      logger,
      cipher,
      clock,
      ...(options.matcher && { matcher: options.matcher }),
      ...(options.metrics && { metrics: options.metrics }),
      leaveUnheld: unheldToPayeeBank,
    }),
  };
  const decide =
    deciding &&
    entryDecisions({
      decide: deciding.decisions.decide,
      accounts: deciding.accounts,
      clock,
      unheldToPayeeBank,
    });
  const commands = batchCommands({
    store,
    cipher,
    ...(entryBudget && { entryBudget }),
    clock,
    newId: options.newId ?? randomUUID,
    fanOutChunkSize,
    onStaged: () => fanOut.wake(),
    ...(decide && { decide, ...(onAnswered && { onEntriesAnswered: onAnswered }) }),
    ...(onEntriesJudged && { onEntriesJudged }),
  });
  const fanOut = fanOutWorker({
    store,
    logger,
    chunkSize: fanOutChunkSize,
    ...(gate && { runUnit: <T>(work: () => Promise<T>) => gate.low(work) }),
    ...(!gate && pacer && { runUnit: <T>(work: () => Promise<T>) => pacer.run(work) }),
    ...(decide && {
      decisions: { decide, answer: commands.answerEnds },
      ...(onAnswered && { onEntriesAnswered: onAnswered }),
    }),
  });
  const relay = new OutboxRelay({
    store,
    bus,
    name: RELAY_NAME,
    ...(gate && { batchSize: SHARED_THREAD_BATCH_RELAY_PAGE }),
    route: (event) => routeIntegrationEvent(topics, event),
    onError: loopFailureLog(logger, 'batch outbox relay failed; retrying'),
  });
  if (options.metrics)
    registerLagMetrics(options.metrics, {
      bus,
      consumers: () => [
        ...(ownCopy ? [ownCopy.group] : []),
        { groupId: progressGroupId(namespace), topics: [topics.verificationCompletedBatch] },
      ],
      outboxes: [{ store, relayName: RELAY_NAME }],
    });
  const subscriptions: Subscription[] = [];
  return {
    store,
    accountCopyAtCommit: copiesAtCommit([
      ...(ownCopy ? [ownCopy.atCommit()] : []),
      domesticAccountsAtCommit(schema),
    ]),
    routers: [batchRoutes({ commands, sql, schema, cipher })],
    async start() {
      await migrateBatchSchema(sql, store);
      await keys.migrate();
      await entryBudget?.migrate();
      await ownCopy?.migrate();
      await ownCopy?.listen();
      await bus.ensureTopics(
        Object.values(topics).map((name) => ({ name, partitions: TOPIC_PARTITIONS })),
      );
      // With a copy of its own, the domestic accounts come with the copy's deliveries (`alongside`).
      if (!ownCopy)
        subscriptions.push(
          await subscribeToDomesticAccounts({
            bus,
            sql,
            schema,
            topic: topics.accountEvents,
            groupPrefix: namespace,
            logger,
            ...(options.metrics && { metrics: options.metrics }),
          }),
        );
      subscriptions.push(
        await subscribeToBatchProgress({
          bus,
          sql,
          schema,
          topic: topics.verificationCompletedBatch,
          groupPrefix: namespace,
          commands,
          logger,
          ...(onAnswered && { onAnswered }),
        }),
      );
      if (ownCopy) subscriptions.push(await ownCopy.subscribe());
      await relay.start();
      pacer?.start();
      fanOut.start();
      logger.info('batch service started');
    },
    async stop() {
      await fanOut.stop();
      pacer?.stop();
      for (const subscription of subscriptions.splice(0)) await subscription.close();
      await relay.stop();
      await ownCopy?.stop();
    },
    async checkReady() {
      await deciding?.accounts.checkCaughtUp();
    },
  };
}
