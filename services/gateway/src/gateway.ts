import { randomUUID } from 'node:crypto';
import { RELEASE_VERSION } from '@vop/config';
import {
  TOPIC_PARTITIONS,
  topicNames,
  type VerificationRequestedData,
  type VerificationEnd,
} from '@vop/contracts';
import { EventStore, type SqlClient } from '@vop/event-store';
import { createHttpApp, opsRoutes, type ReadinessCheck } from '@vop/http';
import { closeQuietly, startInOrder } from '@vop/lifecycle';
import type { Bus, Subscription } from '@vop/messaging';
import { metricsEndpoint, type Logger, type ServiceMetrics } from '@vop/observability';
import {
  OutboxRelayThread,
  migrateInbox,
  relayReadiness,
  registerLagMetrics,
  serviceHealth,
  type RelayControl,
  type ServiceHealth,
} from '@vop/outbox';
import { accountEventProtector, createPersonalData } from '@vop/personal-data';
import {
  type AccountCopyAtCommit,
  copiesAtCommit,
  decisionsWithCopy,
  verificationRecorder,
} from '@vop/verifications';
import type { NameMatcher } from '@vop/name-matching';
import type { Express, Router } from 'express';
import { migrateAccountsReadModel } from './accounts/read-model.js';
import { adminRoutes } from './admin/admin-routes.js';
import { apiDocumentRoutes } from './api-documents/routes.js';
import { detailedHealth } from './admin/detailed-health.js';
import { testDataRoutes } from './admin/test-data-routes.js';
import { AuditLog } from './audit/audit-log.js';
import { accountRoutes } from './accounts/routes.js';
import { migrateAccountImports } from './accounts/import/import-read-model.js';
import { accountImportRoutes } from './accounts/import/import-routes.js';
import { sandboxAccountRoutes } from './accounts/sandbox-routes.js';
import { createTestAccountSweeper } from './accounts/test-account-sweeper.js';
import {
  migrateCoreBankingFeed,
  subscribeToCoreBankingFeed,
} from './accounts/core-banking/feed-consumer.js';
import { gatewayEdge, type GatewayEdgeOptions } from './edge.js';
import {
  DECIDED_AT_RECORDING_LINGER_MS,
  GATEWAY_OUTBOX_RELAY_NAME,
  gatewayRelay,
} from './outbox/gateway-relay.js';
import type { RelayThreadData } from './outbox/relay-thread-data.js';
import { pageRoutes } from './pages/page-routes.js';
import type { SandboxOptions } from './toolkit/sandbox.js';
import { createTestToolkit } from './toolkit/toolkit.js';
import { ApiKeyStore } from './security/api-keys/api-key-store.js';
import { ensureDevelopmentKey } from './security/api-keys/development-key.js';
import { createRateLimits } from './security/rate-limit.js';
import {
  DEFAULT_SECURITY,
  DEFAULT_TEST_ACCOUNT_RETENTION,
  DEFAULT_TYPED_NAME_RETENTION_MS,
  type GatewaySecuritySettings,
} from './settings.js';
import { seedDevelopmentDirectory } from './scheme-directory/development-seed.js';
import { requesterCheck } from './scheme-directory/requester-check.js';
import {
  SCHEME_DIRECTORY_BODY_LIMIT,
  SCHEME_DIRECTORY_PATH,
  schemeDirectoryRoutes,
} from './scheme-directory/routes.js';
import { SchemeDirectory } from './scheme-directory/scheme-directory.js';
import { subscribeToCompletions, waitersGroupId } from './verifications/completion-consumers.js';
import {
  createTimeoutSweeper,
  DEFAULT_FAILURE_LIMITS,
} from './verification-failures/timeout-sweeper.js';
import {
  findEndedVerifications,
  pendingVerificationsWrite,
  migrateVerificationsReadModel,
  verificationsWrite,
} from './verifications/read-model.js';
import { accountNumberVerificationRoutes } from './verifications/account-number-routes.js';
import { immediateVerificationRoutes } from './verifications/immediate-routes.js';
import { verificationRoutes } from './verifications/routes.js';
import { synchronousVerifier } from './verifications/synchronous.js';
import { TypedNameRetention } from './verifications/typed-name-retention.js';
import { CompletionWaiters } from './verifications/waiters.js';

export const GATEWAY_SCHEMA = 'gateway';
export const SERVICE_VERSION = RELEASE_VERSION;

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
  clientCertificates?: GatewayEdgeOptions['clientCertificates'];
  /** Environment, keys and rate limits; defaults: test environment, no development key, default limits. */
  security?: GatewaySecuritySettings;
  /** Embedded run: the routers of the services composed in this process, mounted behind this edge. */
  serviceRouters?: Router[];
  /** Embedded run: the health reports of the services composed in this process (GET /health/detailed). */
  serviceHealth?: Array<() => Promise<ServiceHealth>>;
  /** Distributed run: where the families of other services are forwarded (packages/http/src/forward.ts). */
  forwarding?: GatewayEdgeOptions['forwarding'];
  clock?: () => Date;
  newId?: () => string;
  /**
   * Where single checks are decided (VOP_SINGLE_CHECKS_DECIDED_BY): `gateway` (default) in the statement
   * that records them, with `matcher` (default: the scheme's); `matching` over the bus.
   */
  singleChecksDecidedBy?: 'gateway' | 'matching';
  matcher?: NameMatcher;
  /** Rows per transaction of a bulk account import (default by database: see accounts/import). */
  importChunkRows?: number;
  /**
   * Copies of the accounts other services keep in this gateway's database (embedded: batch's and
   * matching's), written with each account write as the gateway's own copy is.
   */
  accountCopiesAtCommit?: AccountCopyAtCommit[];
  /** Test deployments: the CA the test toolkit issues its certificates from (the edge must trust it). */
  testToolkit?: SandboxOptions;
  /**
   * Distributed run: the outbox relay on a thread of its own, with its own connections from the
   * process's configuration (outbox/relay-thread.ts). Default: on this thread, with `sql` and `bus`.
   */
  relayOnThread?: boolean;
  /** Rounds of single checks recorded at once (packages/verifications/src/recorder.ts); default 1. */
  recordingRoundsInFlight?: number;
  /** The least time between the starts of two recording rounds (packages/verifications/src/recorder.ts). */
  recordingRoundGatherMs?: number;
}

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
    lookup: (ids) => findEndedVerifications(sql, schema, ids),
  });
  const relaySettings = {
    namespace,
    instanceId: options.instanceId,
    // Distributed only: embedded, a burst's webhooks arrived later with it (gateway-relay.ts says why).
    lingerMs:
      options.relayOnThread === true && (options.singleChecksDecidedBy ?? 'gateway') === 'gateway'
        ? DECIDED_AT_RECORDING_LINGER_MS
        : 0,
  };
  const relay: RelayControl = options.relayOnThread
    ? new OutboxRelayThread({
        entry: new URL('./outbox/relay-thread.js', import.meta.url),
        workerData: { ...relaySettings, schema } satisfies RelayThreadData,
        logger,
      })
    : gatewayRelay({ ...relaySettings, store, bus, logger });
  const subscriptions: Subscription[] = [];
  const clock = options.clock ?? (() => new Date());
  const newId = options.newId ?? randomUUID;
  let shuttingDown = false;
  const startedAt = Date.now();
  const security = options.security ?? DEFAULT_SECURITY;
  const environment = security.rateLimits.environment;
  const apiKeys = new ApiKeyStore(sql, schema);
  const audit = new AuditLog(sql, schema);
  const timeoutSweeper = createTimeoutSweeper({
    store,
    limits: security.verificationFailures ?? DEFAULT_FAILURE_LIMITS,
    logger: logger.child({ component: 'verification-timeouts' }),
    clock,
  });
  const rateLimits = createRateLimits({ sql, schema, settings: security.rateLimits, logger });
  const personalData = createPersonalData(sql);
  // Single checks are decided in the statement that records them, against this gateway's own copy of
  // the accounts (docs/architecture.md, "Where a single check is decided"): a caller is answered at
  // commit, without the round trip through Kafka and matching.
  const deciding =
    (options.singleChecksDecidedBy ?? 'gateway') === 'gateway'
      ? decisionsWithCopy({
          store,
          bus,
          logger,
          group: `${namespace}gateway-decision-accounts`,
          topic: topics.accountEvents,
          cipher: personalData.cipher,
          clock,
          ...(options.matcher && { matcher: options.matcher }),
          ...(options.metrics && { metrics: options.metrics }),
        })
      : undefined;
  const accountCopy = deciding?.accounts;
  const decisions = deciding?.decisions;
  // Every copy of the accounts a decision reads that this database holds is written with the account
  // write itself: a check sent once the write was answered sees it (read your writes).
  const copy = copiesAtCommit([
    ...(accountCopy ? [accountCopy.atCommit()] : []),
    ...(options.accountCopiesAtCommit ?? []),
  ]);
  const accountWrites = {
    store,
    protect: accountEventProtector(personalData.cipher),
    copy,
    clock,
    newId,
  };
  const testAccountSweeper =
    environment === 'test'
      ? createTestAccountSweeper({
          store,
          copy,
          retention: security.testAccounts ?? DEFAULT_TEST_ACCOUNT_RETENTION,
          logger: logger.child({ component: 'test-account-retention' }),
          now: clock,
        })
      : undefined;
  const typedNameRetention = new TypedNameRetention(
    personalData.keys,
    security.typedNameRetentionMs ?? DEFAULT_TYPED_NAME_RETENTION_MS,
    logger,
    clock,
  );

  const verifierOptions = {
    record: verificationRecorder({
      store,
      cipher: personalData.cipher,
      inline: (requests: VerificationRequestedData[], ends: VerificationEnd[]) =>
        ends.length === 0
          ? pendingVerificationsWrite(schema, requests)
          : verificationsWrite(schema, requests, ends),
      // Its callers are answered with the ends record() gives: no waiter is notified of them.
      ...(decisions && { decide: decisions.decide }),
      clock,
      roundsInFlight: options.recordingRoundsInFlight,
      roundGatherMs: options.recordingRoundGatherMs,
    }),
    decidedAtRecording: decisions !== undefined,
    waiters,
    cipher: personalData.cipher,
    deadlineMs: options.verifyDeadlineMs,
    clock,
    newId,
  };
  const verifier = synchronousVerifier(verifierOptions);
  const schemeDirectory = new SchemeDirectory({
    store,
    environment,
    logger: logger.child({ component: 'scheme-directory' }),
  });
  const directorySettings = security.schemeDirectory;
  const testToolkit =
    environment === 'test'
      ? createTestToolkit({
          store,
          accountWrites,
          sandbox: options.testToolkit,
          trustAnchorsPem: options.clientCertificates?.trustAnchorsPem,
          app: () => app,
          instanceId: options.instanceId,
          targetAllowedNetworks: security.testTargetAllowedNetworks ?? [],
          logger: logger.child({ component: 'test-toolkit' }),
          ...(options.metrics && { metrics: options.metrics }),
          clock,
          newId,
        })
      : undefined;

  const healthSources = {
    service: 'gateway',
    sql,
    bus,
    topics: topicSpecs,
    consumers: () => [
      ...(accountCopy ? [accountCopy.group] : []),
      {
        groupId: `${namespace}gateway-verification-results`,
        topics: [topics.verificationCompleted],
      },
      // This instance's waiters group only while it is subscribed (completion-consumers.ts).
      ...(bus.subscribedGroups?.() ?? []).filter(
        ({ groupId }) => groupId === waitersGroupId(namespace, options.instanceId),
      ),
    ],
    outboxes: [{ store, relayName: GATEWAY_OUTBOX_RELAY_NAME }],
  };
  if (options.metrics) {
    registerLagMetrics(options.metrics, healthSources);
    // Every group subscribed through the bus, named in the health report or not (the core-banking feed;
    // embedded, the one bus of every service).
    registerLagMetrics(options.metrics, {
      bus,
      consumers: () => bus.subscribedGroups?.() ?? [],
      outboxes: [],
    });
  }
  const edge = gatewayEdge({
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.clientCertificates && { clientCertificates: options.clientCertificates }),
    ...(options.forwarding && { forwarding: options.forwarding }),
    apiKeys,
    environment,
    audit,
    rateLimits,
    logger,
    clock,
  });
  const verifications = verificationRoutes({
    ...verifierOptions,
    store,
    requesters: requesterCheck({
      directory: schemeDirectory,
      ownBics: directorySettings?.ownBics,
      logger: logger.child({ component: 'scheme-directory' }),
    }),
  });
  const app = createHttpApp({
    logger,
    respondingPsp: options.respondingPsp,
    largeBodyPaths: { [SCHEME_DIRECTORY_PATH]: SCHEME_DIRECTORY_BODY_LIMIT },
    beforeRoutes: edge.beforeRoutes,
    // The pages first: the HTML view of /admin/stats is the gateway's, its JSON the owner's.
    forwarders: [pageRoutes({ testPage: environment === 'test' }), ...edge.forwarders],
    directRoutes: verifications.direct,
    routers: [
      // The single checks first: their paths are no other router's (see verificationRoutes).
      verifications.scheme,
      opsRoutes({
        version: SERVICE_VERSION,
        startedAt,
        isShuttingDown: () => shuttingDown,
        ...(options.metrics && { metrics: metricsEndpoint(options.metrics) }),
        detailed: {
          report: (principal) =>
            detailedHealth({
              version: SERVICE_VERSION,
              startedAt,
              principal,
              gateway: () => serviceHealth(healthSources),
              local: options.serviceHealth ?? [],
              ...(options.forwarding && { remote: options.forwarding }),
            }),
        },
        checks: [
          { name: 'database', check: async () => void (await sql.query('SELECT 1')) },
          { name: 'outbox-relay', check: async () => relayReadiness(relay) },
          ...(accountCopy ? [{ name: 'accounts', check: () => accountCopy.checkCaughtUp() }] : []),
          ...(options.extraReadinessChecks ?? []),
        ],
      }),
      apiDocumentRoutes(SERVICE_VERSION, environment),
      // Before the admin routes: /admin/accounts/import is its own family (a streamed upload).
      accountImportRoutes({
        store,
        copy,
        cipher: personalData.cipher,
        audit,
        logger: logger.child({ component: 'account-import' }),
        clock,
        newId,
        ...(options.importChunkRows !== undefined && { chunkRows: options.importChunkRows }),
      }),
      adminRoutes({ keys: apiKeys, audit, environment, subjectKeys: personalData.keys }),
      schemeDirectoryRoutes({ directory: schemeDirectory, clock }),
      // Before the bank's account routes: the sandbox owns the `acc_` form of DELETE /api/accounts/{id}.
      ...(environment === 'test'
        ? [sandboxAccountRoutes(accountWrites), testDataRoutes(accountWrites)]
        : []),
      ...(testToolkit?.routers ?? []),
      accountRoutes(accountWrites),
      // Family D before family B: both are POST /verify, told apart by the body.
      accountNumberVerificationRoutes({ verifier, sql, schema }),
      immediateVerificationRoutes(verifier),
      verifications.others,
      ...(options.serviceRouters ?? []),
    ],
  });

  return {
    app,
    store,
    async start() {
      await startInOrder([
        { start: prepare },
        { start: subscribe, stop: () => closeQuietly(subscriptions) },
        { start: startBackground },
      ]);
    },
    async stop() {
      shuttingDown = true;
      await testToolkit?.stop();
      for (const subscription of subscriptions.splice(0)) await subscription.close();
      await testAccountSweeper?.stop();
      await timeoutSweeper.stop();
      typedNameRetention.stop();
      schemeDirectory.stop();
      await relay.stop();
      await accountCopy?.stop();
    },
  };

  async function prepare(): Promise<void> {
    await store.migrate();
    await migrateInbox(sql, schema);
    await migrateAccountsReadModel(sql, schema);
    await migrateVerificationsReadModel(sql, schema);
    await apiKeys.migrate();
    await audit.migrate();
    await personalData.keys.migrate();
    await rateLimits.migrate();
    await migrateCoreBankingFeed(sql, schema);
    await migrateAccountImports(sql, schema);
    await accountCopy?.migrate();
    await accountCopy?.listen();
    await testToolkit?.start();
    await schemeDirectory.start();
    if (directorySettings?.developmentSeed !== undefined)
      await seedDevelopmentDirectory(
        schemeDirectory,
        directorySettings.developmentSeed,
        clock(),
        logger,
      );
    if (security.developmentKeyDataDir !== undefined) {
      const written = await ensureDevelopmentKey({
        dataDir: security.developmentKeyDataDir,
        keys: apiKeys,
        audit,
      });
      if (written) logger.info({ file: written }, 'development test API key written');
    }
    await bus.ensureTopics(topicSpecs);
  }

  // Pushed one by one, so a start that fails half-way can close what it opened and be retried.
  async function subscribe(): Promise<void> {
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
    if (accountCopy) subscriptions.push(await accountCopy.subscribe());
    subscriptions.push(
      await subscribeToCoreBankingFeed({
        ...accountWrites,
        bus,
        topics,
        groupPrefix: namespace,
        logger: logger.child({ component: 'core-banking-feed' }),
      }),
    );
  }

  async function startBackground(): Promise<void> {
    await relay.start();
    testAccountSweeper?.start();
    timeoutSweeper.start();
    typedNameRetention.start();
    logger.info({ instanceId: options.instanceId }, 'gateway started');
  }
}
