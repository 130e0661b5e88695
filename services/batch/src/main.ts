import { loadConfig, requireDistributed } from '@vop/config';
import { createPostgresClient } from '@vop/event-store';
import { createInternalApp, startHttpServer } from '@vop/http';
import { createKafkaBus } from '@vop/messaging';
import { createLogger, createMetricsRegistry, metricsEndpoint } from '@vop/observability';
import { createBatchService } from './service.js';

/** Distributed run: one batch process; its internal listener serves probes and its own families. */
const config = loadConfig();
const logger = createLogger({ service: 'batch', level: config.LOG_LEVEL });
const { databaseUrl, kafkaBrokers } = requireDistributed(config);
const metrics = createMetricsRegistry({ service: 'batch' });

const sql = createPostgresClient({
  connectionString: databaseUrl,
  max: config.DATABASE_POOL_MAX,
  applicationName: `vop-batch-${config.VOP_INSTANCE_ID}`,
});
const bus = createKafkaBus({
  brokers: kafkaBrokers,
  clientId: `${config.KAFKA_CLIENT_ID}-batch-${config.VOP_INSTANCE_ID}`,
});
const keySql = config.VOP_KEYSTORE_DATABASE_URL
  ? createPostgresClient({
      connectionString: config.VOP_KEYSTORE_DATABASE_URL,
      max: 4,
      applicationName: `vop-batch-keys-${config.VOP_INSTANCE_ID}`,
    })
  : sql;
const batch = createBatchService({
  sql,
  bus,
  logger,
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
  version: '0.1.0',
  startedAt: Date.now(),
  checks: [{ name: 'database', check: async () => void (await sql.query('SELECT 1')) }],
  isShuttingDown: () => !ready,
  metrics: metricsEndpoint(metrics),
  routers: batch.routers,
  internalSecret: config.VOP_INTERNAL_SECRET,
});

await batch.start();
ready = true;
const server = await startHttpServer({
  handler: app,
  host: config.VOP_HOST,
  port: config.VOP_PORT,
});
logger.info({ url: server.url }, 'batch ready');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  ready = false;
  logger.info({ signal }, 'shutting down');
  await batch.stop();
  await server.close();
  await bus.close();
  if (keySql !== sql) await keySql.close();
  await sql.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
