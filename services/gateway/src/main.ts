import { readFile } from 'node:fs/promises';
import { ConfigError, loadConfig, requireDistributed } from '@vop/config';
import { createPostgresClient } from '@vop/event-store';
import { createKafkaBus } from '@vop/messaging';
import { createLogger, createMetricsRegistry } from '@vop/observability';
import { ensureDevPki } from '@vop/pki';
import { createGateway, gatewaySecuritySettings } from './gateway.js';
import { startHttpsServer } from './http/server.js';

/** Distributed run: one gateway process on real Postgres and Kafka. */
const config = loadConfig();
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
const { databaseUrl, kafkaBrokers } = requireDistributed(config);

async function tlsMaterial(): Promise<{ certPem: string; keyPem: string }> {
  if (config.VOP_TLS_CERT && config.VOP_TLS_KEY) {
    const [certPem, keyPem] = await Promise.all([readFile(config.VOP_TLS_CERT, 'utf8'), readFile(config.VOP_TLS_KEY, 'utf8')]);
    return { certPem, keyPem };
  }
  if (config.VOP_PROFILE === 'production') throw new ConfigError(['VOP_TLS_CERT, VOP_TLS_KEY: required in the production profile']);
  const pki = await ensureDevPki(config.VOP_DATA_DIR);
  const [certPem, keyPem] = await Promise.all([readFile(pki.serverCertPath, 'utf8'), readFile(pki.serverKeyPath, 'utf8')]);
  return { certPem, keyPem };
}

const sql = createPostgresClient({ connectionString: databaseUrl, max: config.DATABASE_POOL_MAX, applicationName: `vop-gateway-${config.VOP_INSTANCE_ID}` });
const bus = createKafkaBus({ brokers: kafkaBrokers, clientId: `${config.KAFKA_CLIENT_ID}-gateway-${config.VOP_INSTANCE_ID}` });
const gateway = createGateway({
  sql,
  bus,
  logger,
  instanceId: config.VOP_INSTANCE_ID,
  respondingPsp: config.VOP_RESPONDING_PSP,
  verifyDeadlineMs: config.VOP_VERIFY_DEADLINE_MS,
  namespace: config.VOP_KAFKA_NAMESPACE,
  metrics: createMetricsRegistry({ service: 'gateway' }),
  security: gatewaySecuritySettings(config),
});
await gateway.start();
const server = await startHttpsServer({ handler: gateway.app, host: config.VOP_HOST, port: config.VOP_PORT, ...(await tlsMaterial()) });
logger.info({ url: server.url }, 'gateway listening');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await gateway.stop();
  await server.close();
  await bus.close();
  await sql.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
