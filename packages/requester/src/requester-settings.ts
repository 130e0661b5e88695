import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type ServiceConfig } from '@vop/config';
import type { BreakerSettings } from './circuit-breaker.js';

export interface RequesterSettings {
  certPath: string;
  keyPath: string;
  caPaths: string[];
  concurrency: number;
  queue: number;
  ratePerSecond: number;
  breaker: BreakerSettings;
}

/**
 * The requester's settings. In the development profile the certificate, key and anchors default to
 * the dev PKI in <VOP_DATA_DIR>/pki (packages/pki/src/dev-pki.ts: ensure it first); production must
 * name all three.
 */
export function requesterSettings(config: ServiceConfig): RequesterSettings {
  const devPki = path.join(config.VOP_DATA_DIR, 'pki');
  const development = config.VOP_PROFILE === 'development';
  const certPath =
    config.VOP_REQUESTER_CERT ?? (development ? path.join(devPki, 'client.pem') : undefined);
  const keyPath =
    config.VOP_REQUESTER_KEY ?? (development ? path.join(devPki, 'client-key.pem') : undefined);
  const caPaths =
    config.VOP_REQUESTER_CA ?? (development ? [path.join(devPki, 'ca.pem')] : undefined);
  const missing = [
    certPath === undefined && 'VOP_REQUESTER_CERT',
    keyPath === undefined && 'VOP_REQUESTER_KEY',
    (caPaths === undefined || caPaths.length === 0) && 'VOP_REQUESTER_CA',
  ].filter((name): name is string => typeof name === 'string');
  if (
    missing.length > 0 ||
    certPath === undefined ||
    keyPath === undefined ||
    caPaths === undefined
  )
    throw new ConfigError(missing.map((name) => `${name}: required to ask other banks`));
  return {
    certPath,
    keyPath,
    caPaths,
    concurrency: config.VOP_REQUESTER_CONCURRENCY,
    queue: config.VOP_REQUESTER_QUEUE,
    ratePerSecond: config.VOP_REQUESTER_RATE_PER_SECOND,
    breaker: {
      consecutiveFailures: config.VOP_REQUESTER_BREAKER_FAILURES,
      failureRatio: config.VOP_REQUESTER_BREAKER_FAILURE_RATIO,
      minimumCalls: config.VOP_REQUESTER_BREAKER_MIN_CALLS,
      windowMs: config.VOP_REQUESTER_BREAKER_WINDOW_MS,
      coolDownMs: config.VOP_REQUESTER_BREAKER_COOL_DOWN_MS,
    },
  };
}

/** The PEM files read, ready for `createRequester({ tls })`. */
export async function requesterTls(
  settings: RequesterSettings,
): Promise<{ cert: Buffer; key: Buffer; ca: Buffer[] }> {
  const [cert, key, ...ca] = await Promise.all(
    [settings.certPath, settings.keyPath, ...settings.caPaths].map((file) => readFile(file)),
  );
  return { cert: cert as Buffer, key: key as Buffer, ca };
}
