import { readFile } from 'node:fs/promises';
import type { ServerOptions } from 'node:https';

/**
 * The TLS settings of the benchmarks' own servers, the same as the gateway's: TLS 1.3 and a client
 * certificate required, so every side of a comparison pays the same handshake.
 */
export async function yardstickTls(
  certPath: string,
  keyPath: string,
  caPath: string,
): Promise<ServerOptions> {
  return {
    cert: await readFile(certPath, 'utf8'),
    key: await readFile(keyPath, 'utf8'),
    ca: await readFile(caPath, 'utf8'),
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
    keepAliveTimeout: 65_000,
  };
}
