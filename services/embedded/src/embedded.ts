import { mkdir } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createAnalyticsService } from '@vop/analytics';
import { createBatchService } from '@vop/batch';
import { RELEASE_VERSION, type ServiceConfig } from '@vop/config';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { createGateway, gatewaySecuritySettings } from '@vop/gateway';
import { startHttpsServer } from '@vop/http';
import { createMatchingService, type NameMatcher } from '@vop/matching';
import { createNameMatcher } from '@vop/name-matching';
import { createInProcessBus } from '@vop/messaging';
import { createMetricsRegistry, type Logger } from '@vop/observability';
import { certificateFingerprint, ensureDevPki, type DevPki } from '@vop/pki';
import { createWebhookDispatcher, webhookSettings } from '@vop/webhook-dispatcher';

export interface EmbeddedOptions {
  config: ServiceConfig;
  logger: Logger;
  matcher?: NameMatcher;
  /** Keep the database in memory (tests and benchmarks); default: under the data folder. */
  inMemory?: boolean;
}

export interface EmbeddedService {
  url: string;
  pki: DevPki;
  /** The embedded database, for operational inspection (and tests that look at what is stored). */
  sql: SqlClient;
  stop(): Promise<void>;
}

/**
 * One embedded process per data folder (PGlite holds it alone), so every start is the same instance: a
 * restart after a crash takes over the outbox leases of the dead process at once (packages/outbox/src/lease.ts).
 */
const EMBEDDED_INSTANCE_ID = 'embedded';

/**
 * All services in one process: PGlite for Postgres, the in-process bus for Kafka, the same service code
 * as the distributed run. HTTPS with a development CA created on first start.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedService> {
  const { config, logger } = options;
  await mkdir(config.VOP_DATA_DIR, { recursive: true });
  const pki = await ensureDevPki(config.VOP_DATA_DIR);
  const sql = await createPgliteClient(
    options.inMemory ? {} : { dataDir: path.join(config.VOP_DATA_DIR, 'pglite') },
  );
  const bus = createInProcessBus({ partitionsPerTopic: 1 });
  const read = (file: string): Promise<string> => readFile(file, 'utf8');
  const [certPem, keyPem, caPem, adminCertPem] = await Promise.all([
    read(pki.serverCertPath),
    read(pki.serverKeyPath),
    read(pki.caPath),
    read(pki.adminCertPath),
  ]);
  // One registry for the one process: both services' metrics on the gateway's /metrics.
  const metrics = createMetricsRegistry({ service: 'vop-embedded' });
  const matching = createMatchingService({
    sql,
    bus,
    logger: logger.child({ component: 'matching' }),
    matcher: options.matcher ?? createNameMatcher(),
    metrics,
    instanceId: EMBEDDED_INSTANCE_ID,
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
  });
  const batch = createBatchService({
    sql,
    bus,
    logger: logger.child({ component: 'batch' }),
    metrics,
  });
  const gateway = createGateway({
    sql,
    bus,
    logger: logger.child({ component: 'gateway' }),
    instanceId: EMBEDDED_INSTANCE_ID,
    respondingPsp: config.VOP_RESPONDING_PSP,
    verifyDeadlineMs: config.VOP_VERIFY_DEADLINE_MS,
    metrics,
    security: gatewaySecuritySettings(config),
    // The families other services own run in this process, behind the same edge.
    serviceRouters: [
      ...matching.routers,
      ...batch.routers,
      ...webhooks.routers,
      ...analytics.routers,
    ],
    serviceHealth: [() => matching.health(), () => analytics.health()],
    extraReadinessChecks: [{ name: 'matching', check: () => matching.checkReady() }],
    // Development profile: the local CA is the trust anchor and the generated admin certificate holds admin rights.
    clientCertificates: {
      trustAnchorsPem: caPem,
      admin: { fingerprints: [certificateFingerprint(adminCertPem)] },
    },
  });
  await matching.start();
  await webhooks.start();
  await analytics.start();
  await batch.start();
  await gateway.start();
  const server = await startHttpsServer({
    handler: gateway.app,
    host: config.VOP_HOST,
    port: config.VOP_PORT,
    certPem,
    keyPem,
    caPem,
  });
  return {
    url: server.url,
    pki,
    sql,
    async stop() {
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
