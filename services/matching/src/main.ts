import http from 'node:http';
import { loadConfig, requireDistributed } from '@vop/config';
import { createPostgresClient } from '@vop/event-store';
import { createKafkaBus } from '@vop/messaging';
import { createLogger, createMetricsRegistry, metricsEndpoint } from '@vop/observability';
import { createMatchingService } from './service.js';
import { createNameMatcher } from '@vop/name-matching';

/** Distributed run: one matching process; its HTTP port serves only probes. */
const config = loadConfig();
const logger = createLogger({ service: 'matching', level: config.LOG_LEVEL });
const { databaseUrl, kafkaBrokers } = requireDistributed(config);
const metrics = createMetricsRegistry({ service: 'matching' });
const serveMetrics = metricsEndpoint(metrics);

const sql = createPostgresClient({ connectionString: databaseUrl, max: config.DATABASE_POOL_MAX, applicationName: `vop-matching-${config.VOP_INSTANCE_ID}` });
const bus = createKafkaBus({ brokers: kafkaBrokers, clientId: `${config.KAFKA_CLIENT_ID}-matching-${config.VOP_INSTANCE_ID}` });
const keySql = config.VOP_KEYSTORE_DATABASE_URL
  ? createPostgresClient({ connectionString: config.VOP_KEYSTORE_DATABASE_URL, max: 4, applicationName: `vop-matching-keys-${config.VOP_INSTANCE_ID}` })
  : sql;
const matching = createMatchingService({ sql, bus, logger, matcher: createNameMatcher(), namespace: config.VOP_KAFKA_NAMESPACE, metrics, keySql });
let ready = false;

const probes = http.createServer((req, res) => {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };
  if (req.url === '/livez') return send(200, { status: 'ok' });
  if (req.url === '/metrics') return serveMetrics(req, res);
  if (req.url === '/readyz') {
    sql.query('SELECT 1').then(
      () => send(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready' }),
      () => send(503, { status: 'not_ready' }),
    );
    return;
  }
  send(404, { error: { code: 'NOT_FOUND', message: 'No such endpoint' } });
});

await matching.start();
ready = true;
await new Promise<void>((resolve) => probes.listen(config.VOP_PORT, config.VOP_HOST, resolve));
logger.info({ port: config.VOP_PORT }, 'matching ready');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  ready = false;
  logger.info({ signal }, 'shutting down');
  await matching.stop();
  probes.close();
  await bus.close();
  if (keySql !== sql) await keySql.close();
  await sql.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
