import { loadConfig, RELEASE_VERSION, requireDistributed } from '@vop/config';
import { createPostgresClient } from '@vop/event-store';
import { createInternalApp, startHttpServer } from '@vop/http';
import { createKafkaBus } from '@vop/messaging';
import { createLogger, createMetricsRegistry, metricsEndpoint } from '@vop/observability';
import { createAnalyticsService } from './analytics.js';

/** Distributed run: one analytics process; its internal listener serves probes and its own families. */
const VERSION = RELEASE_VERSION;
const config = loadConfig();
const logger = createLogger({ service: 'analytics', level: config.LOG_LEVEL });
const { databaseUrl, kafkaBrokers } = requireDistributed(config);
const metrics = createMetricsRegistry({ service: 'analytics' });

const sql = createPostgresClient({
  connectionString: databaseUrl,
  max: config.DATABASE_POOL_MAX,
  applicationName: `vop-analytics-${config.VOP_INSTANCE_ID}`,
});
const bus = createKafkaBus({
  brokers: kafkaBrokers,
  clientId: `${config.KAFKA_CLIENT_ID}-analytics-${config.VOP_INSTANCE_ID}`,
});
const keySql = config.VOP_KEYSTORE_DATABASE_URL
  ? createPostgresClient({
      connectionString: config.VOP_KEYSTORE_DATABASE_URL,
      max: 4,
      applicationName: `vop-analytics-keys-${config.VOP_INSTANCE_ID}`,
    })
  : sql;
const analytics = createAnalyticsService({
  sql,
  bus,
  logger,
  version: VERSION,
  namespace: config.VOP_KAFKA_NAMESPACE,
  keySql,
});
let ready = false;
if (config.VOP_INTERNAL_SECRET === undefined)
  logger.warn('VOP_INTERNAL_SECRET is not set: serving probes only');

const app = createInternalApp({
  logger,
  respondingPsp: config.VOP_RESPONDING_PSP,
  version: VERSION,
  startedAt: Date.now(),
  checks: [{ name: 'database', check: async () => void (await sql.query('SELECT 1')) }],
  isShuttingDown: () => !ready,
  metrics: metricsEndpoint(metrics),
  routers: analytics.routers,
  detailed: { report: async () => ({ services: [await analytics.health()] }) },
  internalSecret: config.VOP_INTERNAL_SECRET,
});

await analytics.start();
ready = true;
const server = await startHttpServer({
  handler: app,
  host: config.VOP_HOST,
  port: config.VOP_PORT,
});
logger.info({ url: server.url }, 'analytics ready');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  ready = false;
  logger.info({ signal }, 'shutting down');
  await analytics.stop();
  await server.close();
  await bus.close();
  if (keySql !== sql) await keySql.close();
  await sql.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
