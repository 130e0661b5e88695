import { TOPIC_PARTITIONS, topicNames } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import {
  dropRetiredInbox,
  envelopesOf,
  logHandlerError,
  registerLagMetrics,
  serviceHealth,
  type ServiceHealth,
} from '@vop/outbox';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { createPersonalData } from '@vop/personal-data';
import type { AccountCopyAtCommit } from '@vop/verifications';
import type { Router } from 'express';
import {
  currentGeneration,
  migrateGeneration,
  PROJECTION_CONSUMER,
  projectionGroupId,
} from './activity/generation.js';
import { migrateAnalyticsReadModels, projectAnalyticsEvents } from './activity/projection.js';
import { analyticsAccountsAtCommit } from './accounts/at-commit.js';
import { accountRoutes } from './accounts/routes.js';
import { adminFigureRoutes } from './admin-figures/routes.js';
import { analyticsRoutes } from './usage/routes.js';

export const ANALYTICS_SCHEMA = 'analytics';

export interface AnalyticsServiceOptions {
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  version: string;
  schema?: string;
  /** Prefix of topics and consumer groups (VOP_KAFKA_NAMESPACE). */
  namespace?: string;
  /** Where the subject keys live (the gateway's database in distributed mode); default: `sql`. */
  keySql?: SqlClient;
  /** consumer_lag of the projection's group; analytics has no outbox. */
  metrics?: ServiceMetrics;
  clock?: () => Date;
  /**
   * How long deliveries gather before the projection takes them (default 250 ms; `lingerMs` of
   * packages/messaging/src/types.ts). Each delivery is a transaction whatever its size, and embedded
   * the relay published after almost every round of single checks: analytics took two transactions of
   * five statements per round (bench/RESULTS.md §1). On Kafka it is also how often an idle projection
   * fetches (every fetch costs the process a millisecond or two). Its figures are read by people.
   */
  deliveryLingerMs?: number;
}

export const ANALYTICS_DELIVERY_LINGER_MS = 250;
/**
 * Most events in one delivery: on Kafka the partitions (and topics) fetched together are merged into it,
 * one transaction for what a fetch brought (an import's account events come by the thousand on every
 * partition, each delivery a transaction of its statements whatever its size).
 */
const ANALYTICS_DELIVERY_MAX = 2_000;

export interface AnalyticsService {
  /** The routes of the families this service owns, served behind the gateway's edge. */
  readonly routers: Router[];
  /**
   * Its accounts read model written in an account write's transaction, where the writer shares this
   * database (embedded; accounts/at-commit.ts).
   */
  readonly accountsAtCommit: AccountCopyAtCommit;
  /** The consumer group of the current generation (see activity/generation.ts). */
  groupId(): string | undefined;
  /** Database, Kafka and consumer lag (GET /health/detailed); analytics has no outbox. */
  health(): Promise<ServiceHealth>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Projections for analysts and operators, in the service's own schema, from the account, request,
 * completion and batch topics: usage, match rates, account status and history, admin figures.
 */
export function createAnalyticsService(options: AnalyticsServiceOptions): AnalyticsService {
  const { sql, bus, logger } = options;
  const schema = options.schema ?? ANALYTICS_SCHEMA;
  const namespace = options.namespace ?? '';
  const topics = topicNames(namespace);
  const clock = options.clock ?? (() => new Date());
  const { cipher } = createPersonalData(options.keySql ?? sql);
  const subscriptions: Subscription[] = [];
  let groupId: string | undefined;
  const startedAt = Date.now();
  const consumed = [
    topics.accountEvents,
    topics.verificationRequested,
    // Batch entries travel on their own topic (services/batch); analytics counts them like any request.
    topics.verificationRequestedBatch,
    // Requests left to the requesting side (a payee at another bank, services/gateway/src/requesting/).
    topics.verificationRequestedRouting,
    topics.verificationCompleted,
    topics.verificationCompletedBatch,
    // Verifications decided where they were recorded (gateway, batch service) travel on the twins.
    topics.verificationRequestedDecided,
    topics.verificationRequestedBatchDecided,
    topics.verificationCompletedDecided,
    topics.verificationCompletedBatchDecided,
    topics.batchEvents,
  ];

  const consumers = (): Array<{ groupId: string; topics: string[] }> =>
    groupId === undefined ? [] : [{ groupId, topics: consumed }];
  if (options.metrics) registerLagMetrics(options.metrics, { bus, consumers, outboxes: [] });

  return {
    routers: [
      analyticsRoutes({ sql, schema, clock }),
      accountRoutes({ sql, schema, clock }),
      adminFigureRoutes({ sql, schema, cipher, clock, version: options.version, startedAt }),
    ],
    accountsAtCommit: analyticsAccountsAtCommit(schema),
    groupId: () => groupId,
    health: () =>
      serviceHealth({
        service: 'analytics',
        sql,
        bus,
        topics: consumed.map((name) => ({ name, partitions: TOPIC_PARTITIONS })),
        consumers,
        outboxes: [],
      }),
    async start() {
      await migrateAnalyticsReadModels(sql, schema);
      // Kept by releases before: two rows a check, never pruned.
      if (await dropRetiredInbox(sql, schema)) logger.info('retired processed ids dropped');
      await migrateGeneration(sql, schema);
      await bus.ensureTopics(consumed.map((name) => ({ name, partitions: TOPIC_PARTITIONS })));
      groupId = projectionGroupId(namespace, await currentGeneration(sql, schema));
      subscriptions.push(
        await bus.subscribe({
          groupId,
          fromBeginning: true,
          topics: consumed,
          partitionsConsumedConcurrently: 4,
          mergePartitions: true,
          maxBatchSize: ANALYTICS_DELIVERY_MAX,
          lingerMs: options.deliveryLingerMs ?? ANALYTICS_DELIVERY_LINGER_MS,
          onHandlerError: logHandlerError(logger, PROJECTION_CONSUMER),
          // No processed ids: every event analytics reads is one a repeat cannot change (a verification's
          // row takes its first end, an account's row keeps its revision; activity/projection.test.ts),
          // and they grew by two rows a check, never pruned.
          batchHandler: async (messages) => {
            const envelopes = envelopesOf(messages);
            if (envelopes.length > 0)
              await sql.transaction((tx) => projectAnalyticsEvents(tx, schema, envelopes));
          },
        }),
      );
      logger.info({ groupId }, 'analytics service started');
    },
    async stop() {
      for (const subscription of subscriptions.splice(0)) await subscription.close();
    },
  };
}
