import { execFile } from 'node:child_process';
import { access, chmod, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

/** The password of the development PKCS#12 files (browsers refuse to import a file without one). */
export const DEV_PKCS12_PASSWORD = 'vop-dev';

/**
 * Writes `<name>.p12` (certificate, key and the CA) beside the PEM files, for loading a client
 * certificate into a browser, unless it is there. The keys are ECDSA P-256, which node-forge's
 * PKCS#12 writer does not take (RSA only), so this uses `openssl pkcs12 -export` (OpenSSL 3:
 * AES-256-CBC with PBKDF2, SHA-256 MAC). Returns the path, or undefined when openssl is missing.
 */
export async function ensurePkcs12(options: {
  dir: string;
  name: string;
  certPath: string;
  keyPath: string;
  caPath: string;
  friendlyName: string;
}): Promise<string | undefined> {
  const target = path.join(options.dir, `${options.name}.p12`);
  if (await exists(target)) return target;
  const staging = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    await promisify(execFile)('openssl', [
      'pkcs12',
      '-export',
      '-in',
      options.certPath,
      '-inkey',
      options.keyPath,
      '-certfile',
      options.caPath,
      '-name',
      options.friendlyName,
      '-passout',
      `pass:${DEV_PKCS12_PASSWORD}`,
      '-out',
      staging,
    ]);
    await chmod(staging, 0o600);
    await rename(staging, target);
    return target;
  } catch (error) {
    await rm(staging, { force: true });
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
