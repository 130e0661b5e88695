import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createCertificateAuthority, ensureDevPki, type DevPki, type PemPair } from '@vop/pki';
import type { SchemeBank } from './banks.js';

export const SCHEME_CA_COMMON_NAME = 'VoP Scheme-in-a-box Test CA';
/** A CA that expires within a day is renewed, as the development PKI does. */
const MINIMUM_REMAINING_VALIDITY_MS = 24 * 60 * 60 * 1000;

export interface SchemeCa {
  certPath: string;
  keyPath: string;
  pair: PemPair;
}

/** The scheme's one test CA under `<root>/pki`, reused on the next start while valid. */
export async function ensureSchemeCa(rootDir: string): Promise<SchemeCa> {
  const dir = path.join(rootDir, 'pki');
  const certPath = path.join(dir, 'ca.pem');
  const keyPath = path.join(dir, 'ca-key.pem');
  const held = await readHeld(certPath, keyPath);
  if (held !== undefined) return { certPath, keyPath, pair: held };
  await mkdir(dir, { recursive: true });
  const pair = await createCertificateAuthority({ commonName: SCHEME_CA_COMMON_NAME });
  // The key first: a certificate without its key beside it is never taken for a usable CA.
  await writeAtomically(keyPath, pair.keyPem, 0o600);
  await writeAtomically(certPath, pair.certPem, 0o644);
  return { certPath, keyPath, pair };
}

async function readHeld(certPath: string, keyPath: string): Promise<PemPair | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([
      readFile(certPath, 'utf8'),
      readFile(keyPath, 'utf8'),
    ]);
    const expiresAt = new Date(new X509Certificate(certPem).validTo).getTime();
    return expiresAt - Date.now() > MINIMUM_REMAINING_VALIDITY_MS ? { certPem, keyPem } : undefined;
  } catch {
    return undefined;
  }
}

async function writeAtomically(file: string, contents: string, mode: number): Promise<void> {
  const staging = `${file}.${process.pid}.tmp`;
  await writeFile(staging, contents, { mode });
  await rename(staging, file);
}

/**
 * A bank's certificates in its data folder's development PKI (`<data>/pki`), issued by the scheme
 * CA: the deployment takes them as its own (server, participant, admin) without a setting, and its
 * participant certificate names the bank's authorisation number. A set from an older CA is replaced.
 */
export function ensureBankPki(dataDir: string, ca: SchemeCa, bank: SchemeBank): Promise<DevPki> {
  return ensureDevPki(dataDir, {
    ca: ca.pair,
    participant: { commonName: bank.key, organizationIdentifier: bank.authorisationNumber },
  });
}
