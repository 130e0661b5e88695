import { randomUUID } from 'node:crypto';
import { routeIntegrationEvent, TOPIC_PARTITIONS, topicNames } from '@vop/contracts';
import { EventStore, type SqlClient } from '@vop/event-store';
import {
  authorizeByFamily,
  createHttpApp,
  familyFor,
  forwardToOwner,
  opsRoutes,
  type ReadinessCheck,
  type ServiceName,
} from '@vop/http';
import type { Bus, Subscription } from '@vop/messaging';
import {
  httpMetricsMiddleware,
  metricsEndpoint,
  type Logger,
  type ServiceMetrics,
} from '@vop/observability';
import { OutboxRelay, migrateInbox } from '@vop/outbox';
import { accountEventProtector, createPersonalData } from '@vop/personal-data';
import { verificationRecorder } from '@vop/verifications';
import type { Express, Router } from 'express';
import type { ServiceConfig } from '@vop/config';
import { migrateAccountsReadModel } from './accounts/read-model.js';
import { adminRoutes } from './admin/admin-routes.js';
import { detailedHealth } from './admin/detailed-health.js';
import { AuditLog } from './audit/audit-log.js';
import { auditWrites } from './audit/audit-writes.js';
import { accountRoutes } from './accounts/routes.js';
import { sandboxAccountRoutes } from './accounts/sandbox-routes.js';
import {
  createTestAccountSweeper,
  type TestAccountRetention,
} from './accounts/test-account-sweeper.js';
import { ApiKeyStore } from './security/api-keys/api-key-store.js';
import { bearerAuthentication } from './security/api-keys/bearer-authentication.js';
import { ensureDevelopmentKey } from './security/api-keys/development-key.js';
import { createRateLimits } from './security/rate-limit.js';
import type { RateLimitSettings } from './security/rate-limit-policy.js';
import {
  clientCertificateAuth,
  requireCertificateByFamily,
  type ClientCertificateAuthOptions,
} from './security/client-certificate.js';
import { subscribeToCompletions } from './verifications/completion-consumers.js';
import {
  findCompletedVerifications,
  insertPendingVerifications,
  migrateVerificationsReadModel,
} from './verifications/read-model.js';
import { verificationRoutes } from './verifications/routes.js';
import { TypedNameRetention } from './verifications/typed-name-retention.js';
import { CompletionWaiters } from './verifications/waiters.js';

export const GATEWAY_SCHEMA = 'gateway';
export const SERVICE_VERSION = '0.1.0';
const OUTBOX_RELAY_NAME = 'gateway-outbox';

export interface GatewayOptions {
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  instanceId: string;
  respondingPsp: string;
  verifyDeadlineMs: number;
  schema?: string;
  /** Prefix of topics and consumer groups (VOP_KAFKA_NAMESPACE). */
  namespace?: string;
  extraReadinessChecks?: ReadinessCheck[];
  metrics?: ServiceMetrics;
  /** Mutual TLS: trust anchors and the admin certificate; /vop/* then needs a valid client certificate. */
  clientCertificates?: Omit<ClientCertificateAuthOptions, 'logger' | 'required'>;
  /** Environment, keys and rate limits; defaults: test environment, no development key, default limits. */
  security?: GatewaySecuritySettings;
  /** Embedded run: the routers of the services composed in this process, mounted behind this edge. */
  serviceRouters?: Router[];
  /** Distributed run: where the families of other services are forwarded (packages/http/src/forward.ts). */
  forwarding?: { serviceUrls: Partial<Record<ServiceName, string>>; internalSecret: string };
  clock?: () => Date;
  newId?: () => string;
}

export interface GatewaySecuritySettings {
  rateLimits: RateLimitSettings;
  /** Test deployments: how long test accounts live and how often the job looks (defaults: 24 h, every minute). */
  testAccounts?: TestAccountRetention;
  /** Development profile: where the first-start test key is written (`<dataDir>/pki/test-api-key.txt`). */
  developmentKeyDataDir?: string;
  /** How long typed payee names stay readable (whole UTC days; default 7 days). */
  typedNameRetentionMs?: number;
}

const DEFAULT_TYPED_NAME_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export function gatewaySecuritySettings(config: ServiceConfig): GatewaySecuritySettings {
  return {
    rateLimits: {
      environment: config.VOP_ENVIRONMENT,
      livePerMinute: config.VOP_RATE_LIMITS,
      testPerHour: config.VOP_RATE_LIMIT_TEST_PER_HOUR,
      adminPerMinute: config.VOP_RATE_LIMIT_ADMIN_PER_MINUTE,
    },
    testAccounts: {
      retentionMs: config.VOP_TEST_ACCOUNT_RETENTION_MS,
      sweepIntervalMs: config.VOP_TEST_ACCOUNT_SWEEP_INTERVAL_MS,
    },
    typedNameRetentionMs: config.VOP_TYPED_NAME_RETENTION_MS,
    ...(config.VOP_PROFILE === 'development' &&
      config.VOP_ENVIRONMENT === 'test' && { developmentKeyDataDir: config.VOP_DATA_DIR }),
  };
}

const DEFAULT_TEST_ACCOUNT_RETENTION: TestAccountRetention = {
  retentionMs: 24 * 60 * 60 * 1000,
  sweepIntervalMs: 60_000,
};

const DEFAULT_SECURITY: GatewaySecuritySettings = {
  rateLimits: {
    environment: 'test',
    livePerMinute: { default: 6000 },
    testPerHour: 100,
    adminPerMinute: 60,
  },
};

export interface Gateway {
  readonly app: Express;
  readonly store: EventStore;
  start(): Promise<void>;
  /** Stops taking work: readiness turns 503, consumers and the relay stop. */
  stop(): Promise<void>;
}

/** The one public edge: validates, turns requests into events and answers synchronous callers. */
export function createGateway(options: GatewayOptions): Gateway {
  const { sql, bus, logger } = options;
  const schema = options.schema ?? GATEWAY_SCHEMA;
  const namespace = options.namespace ?? '';
  const topics = topicNames(namespace);
  const topicSpecs = Object.values(topics).map((name) => ({ name, partitions: TOPIC_PARTITIONS }));
  const store = new EventStore(sql, { schema });
  const waiters = new CompletionWaiters({
    lookup: (ids) => findCompletedVerifications(sql, schema, ids),
  });
  const relay = new OutboxRelay({
    store,
    bus,
    name: OUTBOX_RELAY_NAME,
    route: (event) => routeIntegrationEvent(topics, event),
    onError: (error) => logger.warn({ err: error }, 'gateway outbox relay failed; retrying'),
  });
  const subscriptions: Subscription[] = [];
  const clock = options.clock ?? (() => new Date());
  const newId = options.newId ?? randomUUID;
  let shuttingDown = false;
  const startedAt = Date.now();
  const security = options.security ?? DEFAULT_SECURITY;
  const environment = security.rateLimits.environment;
  const apiKeys = new ApiKeyStore(sql, schema);
  const audit = new AuditLog(sql, schema);
  const testAccountSweeper =
    environment === 'test'
      ? createTestAccountSweeper({
          store,
          retention: security.testAccounts ?? DEFAULT_TEST_ACCOUNT_RETENTION,
          logger: logger.child({ component: 'test-account-retention' }),
          now: clock,
        })
      : undefined;
  const rateLimits = createRateLimits({ sql, schema, settings: security.rateLimits, logger });
  const personalData = createPersonalData(sql);
  const accountWrites = {
    store,
    protect: accountEventProtector(personalData.cipher),
    clock,
    newId,
  };
  const typedNameRetention = new TypedNameRetention(
    personalData.keys,
    security.typedNameRetentionMs ?? DEFAULT_TYPED_NAME_RETENTION_MS,
    logger,
    clock,
  );

  const forwardedOwners = new Set(Object.keys(options.forwarding?.serviceUrls ?? {}));
  /** Requests the edge forwarded have no local route: they are counted by family. */
  const forwardedFamilyLabel = (req: { originalUrl?: string }): string | undefined => {
    const family = familyFor((req.originalUrl ?? '/').split('?')[0] ?? '/');
    return forwardedOwners.has(family.owner) ? `forwarded:${family.name}` : undefined;
  };

  const app = createHttpApp({
    logger,
    respondingPsp: options.respondingPsp,
    beforeRoutes: [
      ...(options.metrics
        ? [httpMetricsMiddleware(options.metrics, { labelUnmatched: forwardedFamilyLabel })]
        : []),
      ...(options.clientCertificates
        ? [
            clientCertificateAuth({
              now: clock,
              ...options.clientCertificates,
              required: false,
              logger: logger.child({ component: 'mtls' }),
            }),
            requireCertificateByFamily,
          ]
        : []),
      bearerAuthentication({ keys: apiKeys, environment }),
      // Before authorization, so refused management attempts are audited too.
      auditWrites({ audit, logger }),
      authorizeByFamily,
      rateLimits.middleware,
    ],
    forwarders: Object.entries(options.forwarding?.serviceUrls ?? {}).map(([owner, target]) =>
      forwardToOwner({
        owner: owner as ServiceName,
        target,
        secret: options.forwarding?.internalSecret ?? '',
        logger,
        now: clock,
      }),
    ),
    routers: [
      opsRoutes({
        version: SERVICE_VERSION,
        startedAt,
        isShuttingDown: () => shuttingDown,
        ...(options.metrics && { metrics: metricsEndpoint(options.metrics) }),
        detailed: {
          report: () =>
            detailedHealth({
              version: SERVICE_VERSION,
              startedAt,
              store,
              bus,
              topics: topicSpecs,
              relayNames: [OUTBOX_RELAY_NAME],
            }),
        },
        checks: [
          { name: 'database', check: async () => void (await sql.query('SELECT 1')) },
          ...(options.extraReadinessChecks ?? []),
        ],
      }),
      adminRoutes({ keys: apiKeys, audit, environment, subjectKeys: personalData.keys }),
      // Before the bank's account routes: the sandbox owns the `acc_` form of DELETE /api/accounts/{id}.
      ...(environment === 'test' ? [sandboxAccountRoutes(accountWrites)] : []),
      accountRoutes(accountWrites),
      verificationRoutes({
        store,
        record: verificationRecorder({
          store,
          cipher: personalData.cipher,
          inline: (tx, requests) =>
            insertPendingVerifications(
              tx,
              schema,
              requests.map(({ verificationId, family, requestedAt }) => ({
                id: verificationId,
                family,
                requestedAt,
              })),
            ),
        }),
        waiters,
        cipher: personalData.cipher,
        deadlineMs: options.verifyDeadlineMs,
        clock,
        newId,
      }),
      ...(options.serviceRouters ?? []),
    ],
  });

  return {
    app,
    store,
    async start() {
      await store.migrate();
      await migrateInbox(sql, schema);
      await migrateAccountsReadModel(sql, schema);
      await migrateVerificationsReadModel(sql, schema);
      await apiKeys.migrate();
      await audit.migrate();
      await personalData.keys.migrate();
      await rateLimits.migrate();
      if (security.developmentKeyDataDir !== undefined) {
        const written = await ensureDevelopmentKey({
          dataDir: security.developmentKeyDataDir,
          keys: apiKeys,
          audit,
        });
        if (written) logger.info({ file: written }, 'development test API key written');
      }
      await bus.ensureTopics(topicSpecs);
      subscriptions.push(
        ...(await subscribeToCompletions({
          bus,
          sql,
          schema,
          instanceId: options.instanceId,
          waiters,
          topic: topics.verificationCompleted,
          groupPrefix: namespace,
          logger,
        })),
      );
      await relay.start();
      testAccountSweeper?.start();
      typedNameRetention.start();
      logger.info({ instanceId: options.instanceId }, 'gateway started');
    },
    async stop() {
      shuttingDown = true;
      for (const subscription of subscriptions.splice(0)) await subscription.close();
      await testAccountSweeper?.stop();
      typedNameRetention.stop();
      await relay.stop();
    },
  };
}
