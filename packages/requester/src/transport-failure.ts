import type { RequesterFailureReason } from './types.js';

export interface TransportFailure {
  reason: Extract<
    RequesterFailureReason,
    'RESPONDER_UNAVAILABLE' | 'RESPONDER_TLS_FAILURE' | 'RESPONDER_TIMEOUT'
  >;
  /** The error code, for the logs. */
  code: string;
  /** True only when the connection failed before a byte of the request could leave. */
  neverSent: boolean;
}

/** No connection was made: no request was written. */
const NO_CONNECTION = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** OpenSSL's verdicts on a server certificate (Node reports them by name). */
const CERTIFICATE_VERDICTS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
]);

const isTlsCode = (code: string): boolean =>
  CERTIFICATE_VERDICTS.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_');

/**
 * What a failed exchange means. A TLS failure is a handshake that did not complete (our check of
 * the server's certificate, or the responder's TLS layer refusing ours): its application never
 * decrypted a request. A reset, a closed socket or anything unknown may follow a written request.
 */
export function transportFailure(error: unknown, deadlineReached: boolean): TransportFailure {
  const code = errorCode(error) ?? 'UNKNOWN';
  if (deadlineReached) return { reason: 'RESPONDER_TIMEOUT', code, neverSent: false };
  if (NO_CONNECTION.has(code)) return { reason: 'RESPONDER_UNAVAILABLE', code, neverSent: true };
  if (isTlsCode(code)) return { reason: 'RESPONDER_TLS_FAILURE', code, neverSent: true };
  return { reason: 'RESPONDER_UNAVAILABLE', code, neverSent: false };
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; depth < 4; depth += 1) {
    if (typeof current !== 'object' || current === null) return undefined;
    if ('code' in current && typeof current.code === 'string') return current.code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}
