import type { Logger } from '@vop/observability';

export type Dependency = 'database' | 'broker';

const CONNECTION_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

const BROKER_CONNECTION_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSBrokerNotFound',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSLockTimeout',
]);

/** node-postgres's own connection failures carry no code, only these messages. */
const DATABASE_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'connection error',
];

/**
 * PostgreSQL: connection exceptions (08…), the server shutting down or starting up (57P01–57P03), too
 * many connections (53300).
 */
const isOutageSqlState = (code: string): boolean =>
  /^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code);

/**
 * The dependency an error says is unreachable, or undefined when it is no outage (a bug, a constraint).
 * Follows the errors it wraps: kafkajs in `originalError`, node-postgres and Node in `cause`.
 */
export function unreachableDependency(error: unknown): Dependency | undefined {
  let current = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { name, code, message, originalError, cause } = current as Record<string, unknown>;
    if (typeof name === 'string' && BROKER_CONNECTION_ERRORS.has(name)) return 'broker';
    if (typeof code === 'string' && (CONNECTION_ERRNO.has(code) || isOutageSqlState(code)))
      return typeof name === 'string' && name.startsWith('KafkaJS') ? 'broker' : 'database';
    if (
      typeof message === 'string' &&
      DATABASE_CONNECTION_MESSAGES.some((part) => message.includes(part))
    )
      return 'database';
    current = originalError ?? cause;
  }
  return undefined;
}

/**
 * Logs an outage of a dependency once when the first request meets it and once when a request
 * succeeds again, instead of a stack per request.
 */
export class OutageLog {
  private readonly down = new Map<Dependency, number>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get anyDown(): boolean {
    return this.down.size > 0;
  }

  unreachable(dependency: Dependency, error: unknown): void {
    if (this.down.has(dependency)) return;
    this.down.set(dependency, this.now());
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(
      { dependency, reason },
      `${dependency} unreachable: answering 503 with Retry-After until it is back`,
    );
  }

  /** A request that needed its dependencies succeeded: whatever was down is back. */
  recovered(): void {
    for (const [dependency, since] of this.down)
      this.logger.warn(
        { dependency, outageMs: this.now() - since },
        `${dependency} reachable again`,
      );
    this.down.clear();
  }
}

/** How often a background loop says again that its dependency is still unreachable. */
const STILL_UNREACHABLE_EVERY_MS = 30_000;

/**
 * A background loop's failure log (a relay, a sweep, a poll retrying on its own): a failure to reach the
 * database or broker is one line without a stack, repeated at most every 30 s while it lasts; any other
 * failure is logged in full each time.
 */
export function loopFailureLog(
  logger: Logger,
  message: string,
  fields: Record<string, unknown> = {},
  now: () => number = Date.now,
): (error: unknown) => void {
  let lastOutageLine = Number.NEGATIVE_INFINITY;
  return (error) => {
    const dependency = unreachableDependency(error);
    if (dependency === undefined) return logger.warn({ ...fields, err: error }, message);
    if (now() - lastOutageLine < STILL_UNREACHABLE_EVERY_MS) return;
    lastOutageLine = now();
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ ...fields, dependency, reason }, `${message} (${dependency} unreachable)`);
  };
}
