import { startWithRetry } from '@vop/lifecycle';
import { loadConfig, RELEASE_VERSION, requireDistributed } from '@vop/config';
import { createPostgresClient } from '@vop/event-store';
import { createInternalApp, startHttpServer } from '@vop/http';
import { createKafkaBus } from '@vop/messaging';
import { createNameMatcher } from '@vop/name-matching';
import { createLogger, createMetricsRegistry, metricsEndpoint } from '@vop/observability';
import { createMatchingService } from './service.js';

/** Distributed run: one matching process; its internal listener serves probes and its own families. */
const config = loadConfig();
const logger = createLogger({ service: 'matching', level: config.LOG_LEVEL });
const { databaseUrl, kafkaBrokers } = requireDistributed(config);
const metrics = createMetricsRegistry({ service: 'matching' });

const sql = createPostgresClient({
  connectionString: databaseUrl,
  max: config.DATABASE_POOL_MAX,
  applicationName: `vop-matching-${config.VOP_INSTANCE_ID}`,
});
const bus = createKafkaBus({
  brokers: kafkaBrokers,
  clientId: `${config.KAFKA_CLIENT_ID}-matching-${config.VOP_INSTANCE_ID}`,
});
const keySql = config.VOP_KEYSTORE_DATABASE_URL
  ? createPostgresClient({
      connectionString: config.VOP_KEYSTORE_DATABASE_URL,
      max: 4,
      applicationName: `vop-matching-keys-${config.VOP_INSTANCE_ID}`,
    })
  : sql;
const matching = createMatchingService({
  sql,
  bus,
  logger,
  matcher: createNameMatcher(),
  instanceId: config.VOP_INSTANCE_ID,
  namespace: config.VOP_KAFKA_NAMESPACE,
  metrics,
  keySql,
});
let ready = false;
if (config.VOP_INTERNAL_SECRET === undefined)
  logger.warn('VOP_INTERNAL_SECRET is not set: serving probes only');

const app = createInternalApp({
  logger,
  respondingPsp: config.VOP_RESPONDING_PSP,
  version: RELEASE_VERSION,
  startedAt: Date.now(),
  checks: [
    { name: 'database', check: async () => void (await sql.query('SELECT 1')) },
    { name: 'outbox-relay', check: () => matching.checkReady() },
  ],
  isShuttingDown: () => !ready,
  metrics: metricsEndpoint(metrics),
  routers: matching.routers,
  detailed: { report: async () => ({ services: [await matching.health()] }) },
  internalSecret: config.VOP_INTERNAL_SECRET,
});

await startWithRetry({ start: () => matching.start(), logger, what: 'matching' });
ready = true;
const server = await startHttpServer({
  handler: app,
  host: config.VOP_HOST,
  port: config.VOP_PORT,
});
logger.info({ url: server.url }, 'matching ready');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  ready = false;
  logger.info({ signal }, 'shutting down');
  await matching.stop();
  await server.close();
  await bus.close();
  if (keySql !== sql) await keySql.close();
  await sql.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
