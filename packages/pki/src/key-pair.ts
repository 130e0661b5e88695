import { webcrypto } from 'node:crypto';
import { x509 } from './x509.js';

/** ECDSA P-256 with SHA-256: small keys and fast TLS handshakes. */
export const SIGNING_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

const PRIVATE_KEY_TAG = 'PRIVATE KEY';

export function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
}

export async function exportPrivateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(pkcs8, PRIVATE_KEY_TAG);
}

export async function importPrivateKeyPem(pem: string): Promise<webcrypto.CryptoKey> {
  const blocks = x509.PemConverter.decodeWithHeaders(pem).filter(
    (block) => block.type === PRIVATE_KEY_TAG,
  );
  const block = blocks[0];
  if (block === undefined) {
    throw new Error('expected a PKCS#8 "PRIVATE KEY" PEM block');
  }
  return webcrypto.subtle.importKey('pkcs8', block.rawData, SIGNING_ALGORITHM, false, ['sign']);
}
