import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startServiceTracing, startWithRetry } from '@vop/lifecycle';
import { ConfigError, loadConfig, requireDistributed, type ServiceConfig } from '@vop/config';
import { createLogger, createMetricsRegistry } from '@vop/observability';
import { certificateFingerprint, ensureDevPki } from '@vop/pki';
import { gatewayConnections } from './connections.js';
import { createGateway } from './service.js';
import { requestingSettings } from './requesting/settings.js';
import { gatewaySecuritySettings } from './settings.js';
import { singleChecksFirst } from './single-checks-first.js';
import { startHttpsServer } from '@vop/http';
import type { AdminCertificateIdentity } from './security/client-certificate.js';

/** Distributed run: one gateway process on real Postgres and Kafka. */
const config = loadConfig();
const tracing = startServiceTracing('gateway');
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
// Fails at once, before any work, when the distributed settings are missing.
requireDistributed(config);

interface TlsMaterial {
  certPem: string;
  keyPem: string;
  caPem: string;
  admin: AdminCertificateIdentity;
  /** Development profile: the development CA's key, from which the test toolkit issues. */
  caKeyPem?: string;
}

async function tlsMaterial(): Promise<TlsMaterial> {
  const read = (file: string): Promise<string> => readFile(file, 'utf8');
  if (config.VOP_PROFILE === 'production') {
    const { VOP_TLS_CERT: certFile, VOP_TLS_KEY: keyFile, VOP_TLS_CA: caFile } = config;
    if (!certFile || !keyFile || !caFile) {
      throw new ConfigError([
        'VOP_TLS_CERT, VOP_TLS_KEY, VOP_TLS_CA: all required in the production profile',
      ]);
    }
    const [certPem, keyPem, caPem] = await Promise.all([
      read(certFile),
      read(keyFile),
      read(caFile),
    ]);
    return { certPem, keyPem, caPem, admin: { fingerprints: config.VOP_ADMIN_CERT_FINGERPRINTS } };
  }
  const pki = await ensureDevPki(config.VOP_DATA_DIR);
  const [certPem, keyPem, caPem] = await Promise.all([
    read(config.VOP_TLS_CERT ?? pki.serverCertPath),
    read(config.VOP_TLS_KEY ?? pki.serverKeyPath),
    read(config.VOP_TLS_CA ?? pki.caPath),
  ]);
  const devAdmin = certificateFingerprint(await read(pki.adminCertPath));
  return {
    certPem,
    keyPem,
    caPem,
    ...(config.VOP_TLS_CA === undefined && {
      caKeyPem: await read(path.join(pki.dir, 'ca-key.pem')),
    }),
    admin: { fingerprints: [devAdmin, ...config.VOP_ADMIN_CERT_FINGERPRINTS] },
  };
}

/** Forwarding signs the principal: without the shared secret the owners could not trust it. */
function requireInternalSecret(settings: ServiceConfig): string {
  if (settings.VOP_INTERNAL_SECRET === undefined) {
    throw new ConfigError(['VOP_INTERNAL_SECRET: required when VOP_SERVICE_URLS names a service']);
  }
  return settings.VOP_INTERNAL_SECRET;
}

const tls = await tlsMaterial();
const { sql, bus } = gatewayConnections(config);
const metrics = createMetricsRegistry({ service: 'gateway' });
const gateway = createGateway({
  sql,
  bus,
  logger,
  instanceId: config.VOP_INSTANCE_ID,
  respondingPsp: config.VOP_RESPONDING_PSP,
  verifyDeadlineMs: config.VOP_VERIFY_DEADLINE_MS,
  singleChecksDecidedBy: config.VOP_SINGLE_CHECKS_DECIDED_BY,
  namespace: config.VOP_KAFKA_NAMESPACE,
  metrics,
  security: gatewaySecuritySettings(config),
  requesting: await requestingSettings(config, { metrics, logger }),
  ...(Object.keys(config.VOP_SERVICE_URLS).length > 0 && {
    forwarding: {
      serviceUrls: config.VOP_SERVICE_URLS,
      internalSecret: requireInternalSecret(config),
    },
  }),
  clientCertificates: { trustAnchorsPem: tls.caPem, admin: tls.admin },
  ...(tls.caKeyPem !== undefined && {
    testToolkit: { ca: { certPem: tls.caPem, keyPem: tls.caKeyPem } },
  }),
  relayOnThread: true,
  recordingRoundGatherMs: config.VOP_RECORDING_GATHER_MS,
  importShare: config.VOP_IMPORT_SHARE,
  importLeastShare: config.VOP_IMPORT_LEAST_SHARE,
});
await startWithRetry({ start: () => gateway.start(), logger, what: 'gateway' });
const server = await startHttpsServer({
  handler: singleChecksFirst(gateway.priorityGate, gateway.app),
  host: config.VOP_HOST,
  port: config.VOP_PORT,
  certPem: tls.certPem,
  keyPem: tls.keyPem,
  caPem: tls.caPem,
  limits: { maxConnections: config.VOP_MAX_CONNECTIONS },
});
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
  await tracing.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
