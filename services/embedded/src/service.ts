import { mkdir } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { createAnalyticsService } from '@vop/analytics';
import { createBatchService } from '@vop/batch';
import { RELEASE_VERSION, type ServiceConfig } from '@vop/config';
import { createPgliteThreadClient, type SqlClient } from '@vop/event-store';
import {
  createGateway,
  gatewayAccountCopy,
  gatewaySecuritySettings,
  requestingSettings,
  singleChecksFirst,
} from '@vop/gateway';
import { mountedRoutes, startHttpsServer } from '@vop/http';
import { createMatchingService, type NameMatcher } from '@vop/matching';
import { createNameMatcher } from '@vop/name-matching';
import { createInProcessBus, PriorityGate } from '@vop/messaging';
import { createMetricsRegistry, type Logger } from '@vop/observability';
import { certificateFingerprint, ensureDevPki, type DevPki } from '@vop/pki';
import { createWebhookDispatcher, webhookSettings } from '@vop/webhook-dispatcher';
import { backgroundConsumersYield } from './background-consumers-yield.js';
import { storeCheckpoints } from './store-checkpoints.js';
import { storeUpkeep } from './store-upkeep.js';

export interface EmbeddedOptions {
  config: ServiceConfig;
  logger: Logger;
  matcher?: NameMatcher;
  /** Keep the database in memory (tests and benchmarks); default: under the data folder. */
  inMemory?: boolean;
  /** Each PGlite thread that opens (tests end one to see the service through a new thread). */
  onPgliteThread?: (thread: Worker) => void;
}

export interface EmbeddedService {
  url: string;
  pki: DevPki;
  /** The embedded database, for operational inspection (and tests that look at what is stored). */
  sql: SqlClient;
  /** Every route the one app mounts, as `METHOD /path/:param` (the path-spelling probe walks them). */
  routes: string[];
  stop(): Promise<void>;
}

/**
 * One embedded process per data folder (PGlite holds it alone), so every start is the same instance: a
 * restart after a crash takes over the outbox leases of the dead process at once (packages/outbox/src/lease.ts).
 */
const EMBEDDED_INSTANCE_ID = 'embedded';

/**
 * Most messages the in-process bus hands a group at once: a few milliseconds of spans and parsing on
 * the thread that answers single checks (packages/messaging/src/in-process/in-process-bus.ts).
 */
const EMBEDDED_DELIVERY_SIZE = 64;

/**
 * The same while no single check came in the last second (`PriorityGate.highActive`): an import's
 * events then reach each consumer in fewer, larger statements, where every statement costs PGlite's
 * one thread a fixed part (bench/RESULTS.md §5). A check arriving after the quiet spell may wait for
 * one such delivery's spans and parsing.
 */
const EMBEDDED_QUIET_DELIVERY_SIZE = 512;

/**
 * All services in one process: PGlite for Postgres, the in-process bus for Kafka, the same service code
 * as the distributed run. HTTPS with a development CA created on first start.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedService> {
  const { config, logger } = options;
  await mkdir(config.VOP_DATA_DIR, { recursive: true });
  const pki = await ensureDevPki(config.VOP_DATA_DIR);
  let pgliteThreads = 0;
  const sql = await createPgliteThreadClient({
    ...(!options.inMemory && { dataDir: path.join(config.VOP_DATA_DIR, 'pglite') }),
    // Statements fail (and /readyz says not ready) until a new thread has reopened the data folder.
    onThreadEnded: (error) =>
      logger.error({ err: error }, 'the PGlite thread ended; starting a new one'),
    onIdleDatabasesFrozen: (databases) =>
      logger.info(
        { databases },
        'froze the other databases of the data folder (their transaction id age)',
      ),
    onIdleDatabasesFreezeFailed: (error) =>
      logger.warn({ err: error }, 'could not freeze the other databases of the data folder'),
    onThreadStarted: (thread) => {
      if (pgliteThreads++ > 0) logger.warn('a new PGlite thread reopened the data folder');
      options.onPgliteThread?.(thread);
    },
  });
  // One database connection and one thread for every service: batch and background work yield to
  // single checks from the edge on, at half the time while they come (single-checks-first.ts). One
  // partition per topic: each consumer group gets a relay's publication as one batch, one transaction
  // (up to EMBEDDED_DELIVERY_SIZE messages).
  const priorityGate = new PriorityGate({ lowShare: 0.5, maxWaitMs: 10 });
  const bus = backgroundConsumersYield(
    createInProcessBus({
      partitionsPerTopic: 1,
      maxDeliverySize: () =>
        priorityGate.highActive() ? EMBEDDED_DELIVERY_SIZE : EMBEDDED_QUIET_DELIVERY_SIZE,
    }),
    priorityGate,
  );
  const read = (file: string): Promise<string> => readFile(file, 'utf8');
  const [certPem, keyPem, caPem, adminCertPem, caKeyPem] = await Promise.all([
    read(pki.serverCertPath),
    read(pki.serverKeyPath),
    read(pki.caPath),
    read(pki.adminCertPath),
    read(path.join(pki.dir, 'ca-key.pem')),
  ]);
  // One registry for the one process: every service's metrics on the gateway's /metrics.
  const metrics = createMetricsRegistry({ service: 'vop-embedded' });
  // One matcher wherever verifications are decided (gateway: single checks; batch: its entries;
  // matching: what came undecided).
  const matcher = options.matcher ?? createNameMatcher();
  // One copy of the accounts that every service deciding here reads, kept by the gateway where its own
  // copy always was: an account write puts it in once, and its events are read back once, not three
  // times (an import's thousands, bench/RESULTS.md §5).
  const accountCopy = gatewayAccountCopy({
    sql,
    bus,
    logger: logger.child({ component: 'gateway' }),
    metrics,
  });
  const matching = createMatchingService({
    sql,
    bus,
    logger: logger.child({ component: 'matching' }),
    sharedAccountCopy: accountCopy,
    matcher,
    metrics,
    instanceId: EMBEDDED_INSTANCE_ID,
    priorityGate,
  });
  const webhooks = createWebhookDispatcher({
    sql,
    bus,
    logger: logger.child({ component: 'webhook-dispatcher' }),
    settings: webhookSettings(config),
    metrics,
  });
  const analytics = createAnalyticsService({
    sql,
    bus,
    logger: logger.child({ component: 'analytics' }),
    version: RELEASE_VERSION,
    metrics,
  });
  const batch = createBatchService({
    sql,
    bus,
    logger: logger.child({ component: 'batch' }),
    metrics,
    entryBudget: {
      environment: config.VOP_ENVIRONMENT,
      livePerMinute: config.VOP_RATE_LIMITS,
      testPerMinute: config.VOP_TEST_RATE_LIMITS,
    },
    priorityGate,
    entriesDecidedBy: config.VOP_BATCH_ENTRIES_DECIDED_BY,
    matcher,
    sharedAccountCopy: accountCopy,
  });
  const gateway = createGateway({
    sql,
    bus,
    logger: logger.child({ component: 'gateway' }),
    instanceId: EMBEDDED_INSTANCE_ID,
    respondingPsp: config.VOP_RESPONDING_PSP,
    verifyDeadlineMs: config.VOP_VERIFY_DEADLINE_MS,
    metrics,
    singleChecksDecidedBy: config.VOP_SINGLE_CHECKS_DECIDED_BY,
    matcher,
    accountCopy,
    // One database: batch's domestic accounts and analytics' accounts are written with the account
    // write, as the copy is. With them every reader of the account events is, so the relay does not
    // read those events back to publish them (docs/architecture.md, "Account events read at commit").
    accountCopiesAtCommit: [batch.accountCopyAtCommit, analytics.accountsAtCommit],
    accountEventsReadAtCommit: true,
    priorityGate,
    // PGlite's thread writes one round while the request thread prepares the next (recorder.ts).
    recordingRoundsInFlight: 2,
    // Checks that arrive alone share a round: its statement costs PGlite's thread the same whatever its size.
    recordingRoundGatherMs: config.VOP_EMBEDDED_RECORDING_GATHER_MS,
    importLeastShare: config.VOP_IMPORT_LEAST_SHARE,
    security: gatewaySecuritySettings(config),
    requesting: await requestingSettings(config, { metrics, logger }),
    // The families other services own run in this process, behind the same edge.
    serviceRouters: [
      ...matching.routers,
      ...batch.routers,
      ...webhooks.routers,
      ...analytics.routers,
    ],
    serviceHealth: [() => matching.health(), () => analytics.health()],
    extraReadinessChecks: [
      { name: 'matching', check: () => matching.checkReady() },
      { name: 'batch', check: () => batch.checkReady() },
    ],
    // Development profile: the local CA is the trust anchor and the generated admin certificate holds admin rights.
    clientCertificates: {
      trustAnchorsPem: caPem,
      admin: { fingerprints: [certificateFingerprint(adminCertPem)] },
    },
    // The test toolkit issues its certificates from the development CA the edge already trusts.
    testToolkit: { ca: { certPem: caPem, keyPem: caKeyPem } },
  });
  await matching.start();
  await webhooks.start();
  await analytics.start();
  await batch.start();
  await gateway.start();
  const upkeep = storeUpkeep({
    sql,
    gate: priorityGate,
    metrics,
    logger: logger.child({ component: 'store-upkeep' }),
  });
  upkeep.start();
  const checkpoints = storeCheckpoints({
    sql,
    gate: priorityGate,
    metrics,
    logger: logger.child({ component: 'store-checkpoints' }),
  });
  checkpoints.start();
  const server = await startHttpsServer({
    handler: singleChecksFirst(priorityGate, gateway.app),
    app: gateway.app,
    host: config.VOP_HOST,
    port: config.VOP_PORT,
    certPem,
    keyPem,
    caPem,
    limits: { maxConnections: config.VOP_MAX_CONNECTIONS },
  });
  return {
    url: server.url,
    pki,
    sql,
    routes: mountedRoutes(gateway.app),
    async stop() {
      await upkeep.stop();
      await checkpoints.stop();
      await server.close();
      await gateway.stop();
      await webhooks.stop();
      await batch.stop();
      await matching.stop();
      await analytics.stop();
      await bus.close();
      await sql.close();
    },
  };
}
