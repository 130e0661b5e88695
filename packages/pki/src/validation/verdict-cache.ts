import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ClientCertificateCheck, ClientCertificateVerdict } from './types.js';

/** A verdict, and for an accepted chain the span (ms since the epoch) in which all its path is valid. */
export interface CheckedChain {
  verdict: ClientCertificateVerdict;
  validity?: { from: number; until: number };
}

interface Accepted {
  verdict: ClientCertificateVerdict;
  validity: { from: number; until: number };
}

/**
 * Checks a chain once and then answers from memory while the clock stays inside its path's validity
 * period, so a mutual TLS handshake does not re-parse and re-verify the same certificates. Only
 * acceptances are kept: a refusal is checked again each time (a certificate not yet valid becomes
 * valid), and an accepted chain whose period ended is checked again, and refused, as if new. The key
 * is the presented chain itself, so another issuer chain for the same leaf is checked on its own.
 */
export function cachingVerdicts(
  check: (input: ClientCertificateCheck) => Promise<CheckedChain>,
  maxEntries: number,
): (input: ClientCertificateCheck) => Promise<ClientCertificateVerdict> {
  const accepted = new LRUCache<string, Accepted>({ max: maxEntries });
  return async (input) => {
    const key = chainKey(input.chain);
    const now = input.now.getTime();
    const known = accepted.get(key);
    if (known !== undefined && now >= known.validity.from && now <= known.validity.until)
      return known.verdict;
    if (known !== undefined) accepted.delete(key);
    const { verdict, validity } = await check(input);
    if (verdict.ok && validity !== undefined) accepted.set(key, { verdict, validity });
    return verdict;
  };
}

function chainKey(chain: ClientCertificateCheck['chain']): string {
  const hash = createHash('sha256');
  for (const certificate of chain) {
    // The type and length first, so no two different chains hash the same bytes.
    const bytes = typeof certificate === 'string' ? Buffer.from(certificate) : certificate;
    hash.update(`${typeof certificate}:${bytes.length}:`).update(bytes);
  }
  return hash.digest('hex');
}
