import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

const port = z.coerce.number().int().min(0).max(65535);

/** One allow-list entry: an IPv4 or IPv6 address, or a CIDR (`10.9.0.0/16`, `fd00::/8`). */
function isNetwork(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  const family = address.includes('%') ? 0 : isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return (
    bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
  );
}

/** CIDRs or addresses, comma separated; an entry that is neither names the setting at start. */
const networkList = commaList.refine((entries) => entries.every(isNetwork), {
  message: 'must be CIDRs or IP addresses, comma separated, e.g. 127.0.0.1/32,::1',
});

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** A setting holding JSON, parsed with `schema`; `message` says what it must look like. */
function jsonSetting<S extends z.ZodType>(schema: S, fallback: string, message: string) {
  return z
    .string()
    .default(fallback)
    .transform((value, context): z.infer<S> => {
      const parsed = schema.safeParse(safeJson(value));
      if (parsed.success) return parsed.data;
      context.addIssue({ code: 'custom', message });
      return z.NEVER;
    });
}

/** Every setting a service reads, from environment variables, validated once at start. */
export const ServiceConfig = z.object({
  VOP_ENVIRONMENT: z.enum(['test', 'live']).default('test'),
  VOP_PROFILE: z.enum(['development', 'production']).default('development'),
  VOP_HOST: z.string().default('127.0.0.1'),
  VOP_PORT: port.default(8443),
  VOP_DATA_DIR: z.string().default('./.vop-data'),
  VOP_INSTANCE_ID: z
    .string()
    .min(1)
    .default(() => randomUUID().slice(0, 8)),
  /** Our bank's BIC, reported as respondingPSP in scheme errors. */
  VOP_RESPONDING_PSP: z.string().default('VOPBDEFFXXX'),
  /**
   * The BICs this deployment answers for as partyAgent (comma separated); another partyAgent is
   * answered NOAP. Default: VOP_RESPONDING_PSP (the development profile adds COBADEFFXXX, the BIC of
   * the README's examples).
   */
  VOP_OWN_BICS: commaList.optional(),
  VOP_VERIFY_DEADLINE_MS: z.coerce.number().int().positive().default(2000),
  /**
   * The requesting side (issue 40): how long a synchronous family (immediate, simple) waits for the
   * payee's bank; the rest of VOP_VERIFY_DEADLINE_MS is our own work before and after the call.
   */
  VOP_PAYEE_BANK_DEADLINE_MS: z.coerce.number().int().positive().default(1500),
  /** The same for request/result checks and batch entries, which the scheme allows 5 s. */
  VOP_DEFERRED_PAYEE_BANK_DEADLINE_MS: z.coerce.number().int().positive().default(5000),
  /** Our BIC as requestingAgent when we ask a payee's bank; default: VOP_RESPONDING_PSP. */
  VOP_REQUESTING_AGENT_BIC: z.string().optional(),
  /**
   * A synchronous verification (scheme, EPC, immediate, account number) still without an outcome this
   * long after its request ends as failed (TIMEOUT): `verification.failure`, and a late outcome is ignored.
   */
  VOP_VERIFICATION_FAIL_AFTER_MS: z.coerce.number().int().positive().default(30_000),
  /** The same for a request/result verification, whose caller fetches the result later. */
  VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS: z.coerce.number().int().positive().default(1_200_000),
  VOP_TLS_CERT: z.string().optional(),
  VOP_TLS_KEY: z.string().optional(),
  VOP_TLS_CA: z.string().optional(),
  /** SHA-256 fingerprints (hex, colons allowed) of the admin certificates, comma separated. */
  VOP_ADMIN_CERT_FINGERPRINTS: commaList.default([]),
  DATABASE_URL: z.string().optional(),
  /** The database holding the subject keys (crypto-shredding) when it is not DATABASE_URL: the gateway's. */
  VOP_KEYSTORE_DATABASE_URL: z.string().optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
  KAFKA_BROKERS: commaList.optional(),
  KAFKA_CLIENT_ID: z.string().default('vop'),
  /** Prefix of every topic and consumer group of this deployment (e.g. "live." or a test run's id). */
  VOP_KAFKA_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/)
    .default(''),
  /** How long the broker holds an idle consumer's fetch (packages/messaging/src/kafka/kafka-bus.ts). */
  VOP_KAFKA_FETCH_WAIT_MS: z.coerce.number().int().min(100).max(10_000).default(1_000),
  /** A Confluent-compatible registry's API base: event values then travel in the Confluent wire format. */
  SCHEMA_REGISTRY_URL: z.string().optional(),
  /** Where traces are exported over OTLP/HTTP; read by the OpenTelemetry SDK itself (with the other OTEL_*). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.union([z.literal(''), z.string().url()]).optional(),
  /**
   * Distributed run: the internal listener of each service that owns route families, e.g.
   * {"matching":"http://127.0.0.1:8601"}; the gateway forwards those families there.
   */
  VOP_SERVICE_URLS: jsonSetting(
    z.partialRecord(z.enum(['matching', 'batch', 'webhook-dispatcher', 'analytics']), z.url()),
    '{}',
    'must be a JSON object of service name to URL, e.g. {"matching":"http://127.0.0.1:8601"}',
  ),
  /** Shared by the gateway and the services behind it: signs the principal the edge forwards (32+ characters). */
  VOP_INTERNAL_SECRET: z.string().min(32).optional(),
  /** Live verification budget per participant per minute; "default" applies to every other caller. */
  /**
   * Live deployments: verifications per participant per minute. "default" is required (issue 39: no
   * environment leaves a caller unbudgeted), as for VOP_TEST_RATE_LIMITS.
   */
  VOP_RATE_LIMITS: jsonSetting(
    z
      .record(z.string(), z.number().int().positive())
      .refine((limits) => limits.default !== undefined),
    '{"default":6000}',
    'must be a JSON object of positive integers per participant with a "default", e.g. {"default":6000}',
  ),
  /**
   * Test deployments: verifications per participant per minute, as VOP_RATE_LIMITS is for live ones
   * (a batch entry draws from 60 times it an hour). "default" is required: no caller goes unbudgeted.
   */
  VOP_TEST_RATE_LIMITS: jsonSetting(
    z
      .record(z.string(), z.number().int().positive())
      .refine((limits) => limits.default !== undefined),
    '{"default":6000}',
    'must be a JSON object of positive integers per participant with a "default", e.g. {"default":600}',
  ),
  /**
   * Connections a process's listener holds open at once (the HTTPS edge, an internal listener); one
   * more is closed as it arrives. Why 4,096: packages/http/src/server.ts.
   */
  VOP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  /** The test endpoints (the sandbox-accounts family) per credential per hour; never the bank's own writes. */
  VOP_RATE_LIMIT_TEST_PER_HOUR: z.coerce.number().int().positive().default(100),
  /** Management endpoints (/admin/*) per credential per minute. */
  VOP_RATE_LIMIT_ADMIN_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /** Test accounts (sandbox endpoints) are removed this long after creation (the specification: 24 hours). */
  VOP_TEST_ACCOUNT_RETENTION_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 60 * 60 * 1000),
  /** Typed payee names become unreadable (their day key is destroyed) after this long; whole UTC days. */
  VOP_TYPED_NAME_RETENTION_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 60 * 60 * 1000),
  /** How often the retention job looks for expired test accounts. */
  VOP_TEST_ACCOUNT_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Webhook receivers at loopback, private, link-local or metadata addresses are refused unless a
   * network listed here (CIDR or address, comma separated) holds them, e.g. "10.0.0.0/8". The
   * development profile of a test deployment adds loopback (a receiver on the developer's machine).
   */
  VOP_WEBHOOK_ALLOWED_NETWORKS: commaList.default([]),
  /**
   * The test toolkit's caller-named `target` (POST /test/scheme/run) is refused at loopback,
   * private, link-local or metadata addresses unless a network listed here holds it; empty in every
   * profile. A run against this deployment itself (no `target`) needs none.
   */
  VOP_TEST_TARGET_ALLOWED_NETWORKS: networkList.default([]),
  /** One delivery attempt gives up after this long (counted as a timeout, then retried). */
  VOP_WEBHOOK_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Waits before each retry, in ms (comma separated); one attempt more than listed. The default
   * (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) spans about 28 hours, each wait jittered by ±20 %.
   */
  VOP_WEBHOOK_RETRY_SCHEDULE_MS: commaList
    .pipe(z.array(z.string().regex(/^\d+$/).transform(Number)))
    .default([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]),
  /** Attempts in flight to one registration at once, across all dispatcher instances. */
  VOP_WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().positive().default(16),
  /** Attempts in flight at once, per dispatcher instance. */
  VOP_WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(64),
  /** How often the dispatcher looks for due retries when nothing woke it. */
  VOP_WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  /**
   * How long the first-end rule remembers that a verification ended (a later end is not sent). Must
   * exceed VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS, the longest a second end can come after the first;
   * default a day.
   */
  VOP_WEBHOOK_ENDED_RETENTION_MS: z.coerce.number().int().positive().default(86_400_000),
  /** How often the dispatcher prunes what the first-end rule no longer needs. */
  VOP_WEBHOOK_PRUNE_INTERVAL_MS: z.coerce.number().int().positive().default(600_000),
  /**
   * Where single checks are decided: `gateway` (in the statement that records them, against the
   * gateway's own copy of the accounts; the answer needs no bus hop) or `matching` (the request travels
   * over Kafka to matching and its end back: the gateway keeps no copy of the accounts and spends no CPU
   * on matching names). docs/architecture.md, "Where a single check is decided".
   */
  VOP_SINGLE_CHECKS_DECIDED_BY: z.enum(['gateway', 'matching']).default('gateway'),
  /**
   * The distributed gateway: the least ms between the starts of two rounds of single checks recorded
   * (one statement each). Under load the checks of several turns share a round; a check after a quiet
   * spell goes at once, so one statement serves many checks without delaying a lone one. 0: a round per
   * turn. Measured in bench/RESULTS.md §1.
   */
  VOP_RECORDING_GATHER_MS: z.coerce.number().int().min(0).max(1000).default(5),
  /**
   * Distributed gateway: the share of time a bulk account import's chunks may take while single checks
   * come (services/gateway/src/service.ts); lower keeps checks faster during an import and slows it.
   */
  VOP_IMPORT_SHARE: z.coerce.number().min(0.05).max(1).default(0.8),
  /**
   * Embedded and distributed gateway: the least share of its own pace a bulk account import keeps while
   * single checks come and ask it to slow down (services/gateway/src/accounts/import/import-pacer.ts);
   * higher finishes an import sooner beside checks and lets them slow more. 1: never slowed for them.
   */
  VOP_IMPORT_LEAST_SHARE: z.coerce.number().min(0.01).max(1).default(0.05),
  /**
   * The embedded service: the same least ms between two recording rounds. Checks that arrive alone
   * (evenly at 200/s) then share a round and its statement on PGlite's thread: 20–37 % less CPU a check,
   * and up to this long more for each (a client that sends one check after another waits it every
   * time). 0 (default): a round per turn; a check's latency comes first. Measured in bench/RESULTS.md §1.
   */
  VOP_EMBEDDED_RECORDING_GATHER_MS: z.coerce.number().int().min(0).max(1000).default(0),
  /**
   * Where batch entries are decided: `batch` (in the transaction that fans them out, against the batch
   * service's own copy of the accounts; answered there) or `matching` (each entry travels over Kafka to
   * matching's batch role and its end back to the batch service's progress).
   */
  VOP_BATCH_ENTRIES_DECIDED_BY: z.enum(['batch', 'matching']).default('batch'),
  /**
   * The OS scheduling priority (nice, 0–19) of background batch processes: the batch service, and a
   * matching process that runs only the batch role. On a shared machine they then take the CPU single
   * checks leave; 0 turns it off.
   */
  VOP_BATCH_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * The OS scheduling priority (nice, 0–19) of the analytics process: its projection is read by people,
   * so on a shared machine it takes the CPU single checks leave (at nice 0 it took the cores the checks
   * needed: bench/RESULTS.md §5, "Analytics niced"); 0 turns it off.
   */
  VOP_ANALYTICS_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * Background batch units (the batch service's fan-out, matching's batch entries) rest while their
   * process waits for a CPU (AIMD on the kernel's run-queue wait). Off by default: on a loaded
   * 2-core box it made a 10,000-entry batch 4 times slower (bench/RESULTS.md §4, 14:38).
   */
  VOP_BATCH_PACING: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * What a matching process consumes: `single` (single checks and the account projection), `batch`
   * (batch entries), or both (default). Two processes, one per role, let the batch one be niced.
   */
  VOP_MATCHING_ROLES: commaList
    .pipe(z.array(z.enum(['single', 'batch'])).min(1))
    .default(['single', 'batch']),
  /**
   * The requesting side (issue 40, packages/requester): our client certificate and key as requesting
   * PSP (PEM paths); the development profile defaults to the dev PKI's client.pem and client-key.pem.
   */
  VOP_REQUESTER_CERT: z.string().optional(),
  VOP_REQUESTER_KEY: z.string().optional(),
  /** PEM paths, comma separated: the anchors responders' server certificates must chain to. */
  VOP_REQUESTER_CA: commaList.optional(),
  /** Calls in flight to one responder from one process; more wait in a short queue. */
  VOP_REQUESTER_CONCURRENCY: z.coerce.number().int().positive().default(64),
  /** Calls waiting for a slot per responder per process; over it a call fails RESPONDER_BUSY. */
  VOP_REQUESTER_QUEUE: z.coerce.number().int().min(0).default(128),
  /** Calls per second to one responder from one process (a 500 req/s bench fits); over it BUSY. */
  VOP_REQUESTER_RATE_PER_SECOND: z.coerce.number().int().positive().default(1000),
  /** A responder's circuit breaker opens after this many failures in a row… */
  VOP_REQUESTER_BREAKER_FAILURES: z.coerce.number().int().positive().default(5),
  /** …or this share of failures over the window, once it holds VOP_REQUESTER_BREAKER_MIN_CALLS. */
  VOP_REQUESTER_BREAKER_FAILURE_RATIO: z.coerce.number().gt(0).max(1).default(0.5),
  VOP_REQUESTER_BREAKER_MIN_CALLS: z.coerce.number().int().positive().default(20),
  VOP_REQUESTER_BREAKER_WINDOW_MS: z.coerce.number().int().positive().default(10_000),
  /** How long an open breaker refuses calls before one probe goes through. */
  VOP_REQUESTER_BREAKER_COOL_DOWN_MS: z.coerce.number().int().positive().default(5_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type ServiceConfig = z.infer<typeof ServiceConfig>;

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const parsed = ServiceConfig.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  return { ...parsed.data, VOP_DATA_DIR: path.resolve(parsed.data.VOP_DATA_DIR) };
}

/** Distributed mode needs both servers; naming what is missing beats a connection error later. */
export function requireDistributed(config: ServiceConfig): {
  databaseUrl: string;
  kafkaBrokers: string[];
} {
  const missing = [
    config.DATABASE_URL ? undefined : 'DATABASE_URL',
    config.KAFKA_BROKERS && config.KAFKA_BROKERS.length > 0 ? undefined : 'KAFKA_BROKERS',
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0)
    throw new ConfigError(missing.map((name) => `${name}: required in distributed mode`));
  return {
    databaseUrl: config.DATABASE_URL as string,
    kafkaBrokers: config.KAFKA_BROKERS as string[],
  };
}

/**
 * The release version (the workspace's package.json), which /health, /health/detailed and
 * /admin/stats report: one source for every service.
 */
export const RELEASE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
