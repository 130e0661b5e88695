import { loadConfig, requireDistributed } from '@vop/config';
import { createPostgresClient } from '@vop/event-store';
import { createInternalApp, startHttpServer } from '@vop/http';
import { createKafkaBus } from '@vop/messaging';
import { createLogger, createMetricsRegistry, metricsEndpoint } from '@vop/observability';
import { createWebhookDispatcher } from './service.js';
import { webhookSettings } from './settings.js';

/** Distributed run: one dispatcher process; its internal listener serves probes and /webhooks*. */
const config = loadConfig();
const logger = createLogger({ service: 'webhook-dispatcher', level: config.LOG_LEVEL });
const { databaseUrl, kafkaBrokers } = requireDistributed(config);
const metrics = createMetricsRegistry({ service: 'webhook-dispatcher' });

const sql = createPostgresClient({
  connectionString: databaseUrl,
  max: config.DATABASE_POOL_MAX,
  applicationName: `vop-webhook-dispatcher-${config.VOP_INSTANCE_ID}`,
});
const bus = createKafkaBus({
  brokers: kafkaBrokers,
  clientId: `${config.KAFKA_CLIENT_ID}-webhook-dispatcher-${config.VOP_INSTANCE_ID}`,
});
const dispatcher = createWebhookDispatcher({
  sql,
  bus,
  logger,
  settings: webhookSettings(config),
  namespace: config.VOP_KAFKA_NAMESPACE,
  metrics,
});
let ready = false;
if (config.VOP_INTERNAL_SECRET === undefined)
  logger.warn('VOP_INTERNAL_SECRET is not set: serving probes only');

const app = createInternalApp({
  logger,
  respondingPsp: config.VOP_RESPONDING_PSP,
  version: '0.1.0',
  startedAt: Date.now(),
  checks: [{ name: 'database', check: async () => void (await sql.query('SELECT 1')) }],
  isShuttingDown: () => !ready,
  metrics: metricsEndpoint(metrics),
  routers: dispatcher.routers,
  internalSecret: config.VOP_INTERNAL_SECRET,
});

await dispatcher.start();
ready = true;
const server = await startHttpServer({
  handler: app,
  host: config.VOP_HOST,
  port: config.VOP_PORT,
});
logger.info({ url: server.url }, 'webhook dispatcher ready');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  ready = false;
  logger.info({ signal }, 'shutting down');
  await dispatcher.stop();
  await server.close();
  await bus.close();
  await sql.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
