import { errorChain } from '@vop/messaging';

/**
 * Errors a service start may meet while its broker or database is still coming up, or restarting: worth
 * waiting out (docs/architecture.md, "Start-up and readiness"). Anything else (a bad setting, a schema
 * conflict, a bug) is not retried, so the process fails loudly instead of looping.
 */
export function isTransientError(error: unknown): boolean {
  for (const { retriable, name, code } of errorChain(error)) {
    // kafkajs marks retriable protocol errors (NOT_LEADER_FOR_PARTITION, LEADER_NOT_AVAILABLE, …).
    if (retriable === true) return true;
    if (typeof name === 'string' && TRANSIENT_KAFKA_ERRORS.has(name)) return true;
    if (typeof code === 'string' && (TRANSIENT_ERRNO.has(code) || isTransientSqlState(code)))
      return true;
  }
  return false;
}

const TRANSIENT_KAFKA_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSMetadataNotLoaded',
]);

const TRANSIENT_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** PostgreSQL: connection exceptions (08…), shutting down / starting up (57P01–57P03), too many connections, serialization and deadlock. */
function isTransientSqlState(code: string): boolean {
  return (
    /^08[0-9A-Z]{3}$/.test(code) ||
    ['57P01', '57P02', '57P03', '53300', '40001', '40P01'].includes(code)
  );
}
