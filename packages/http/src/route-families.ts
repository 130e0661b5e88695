import { canonicalPath } from './base-paths.js';
import { isCanonicalPath } from './path-form.js';

/**
 * Which error body a family answers with: the specification's three, plus `epc`, the EPC inter-PSP
 * API's VerificationOfPayeeError (EPC103-24 v1.1.1) on the EPC path.
 */
export type ErrorFormat = 'nested' | 'flat' | 'scheme' | 'epc';

/** The services that own HTTP routes; `each` is served by every service on its own listener. */
export type ServiceName = 'gateway' | 'matching' | 'batch' | 'webhook-dispatcher' | 'analytics';

/**
 * Who may call a family:
 * - `open`: no credential (probes);
 * - `participant`: any authenticated caller, by certificate or API key;
 * - `participant-certificate`: a valid client certificate, keys never suffice;
 * - `account-records`: the bank's own data: the admin certificate or a key with the accounts scope;
 * - `admin`: the admin certificate;
 * - `analysts`: the bank's analysts: the admin certificate or a key with the analytics scope;
 * - `scraper`: on the public edge a valid client certificate (a scraper's, issued by the trust anchors;
 *   keys never suffice); open on a service's internal listener, which is never published;
 * - `nobody`: no caller; what a path no row covers gets (404 before any router sees it).
 */
export type Access =
  | 'open'
  | 'participant'
  | 'participant-certificate'
  | 'account-records'
  | 'admin'
  | 'analysts'
  | 'scraper'
  | 'nobody';

export type ApiKeyScope = 'verify' | 'accounts' | 'analytics';

/**
 * The budget a request draws from (limits in packages/config): `admin` per credential per minute;
 * `sandbox-writes` the specification's test endpoints, per credential per hour in test deployments;
 * `verifications` per participant per minute in every environment (VOP_RATE_LIMITS live,
 * VOP_TEST_RATE_LIMITS test); `test-toolkit` every request to /test/* (reads too) per credential per
 * hour in test deployments. The bank's own account writes draw from none.
 */
export type RateBudget = 'none' | 'admin' | 'sandbox-writes' | 'verifications' | 'test-toolkit';

export interface RouteFamily {
  name: string;
  /**
   * Canonical paths (base forms stripped), matched case-sensitively as Express's routers are
   * (`createRouter` in router.ts): exact, `*` within one segment, a trailing `/**` any depth; an
   * optional method before the path (`POST /api/accounts`) limits the pattern to that method (a
   * `GET` row covers `HEAD`, which Express serves with the GET route).
   */
  paths: string[];
  owner: ServiceName | 'each';
  errorFormat: ErrorFormat;
  access: Access;
  /** API keys are accepted with this scope; null: this family refuses keys. */
  apiKeyScope: ApiKeyScope | null;
  rateBudget: RateBudget;
  /** A request still unanswered after this long gets the family's timeout error. */
  deadlineMs: number;
  /** Writes leave an audit entry (management). */
  audited: boolean;
  /** Reads leave an audit entry too (management: every operation is audited). */
  auditReads?: boolean;
  /**
   * The route reads the request body itself, as a stream (batch and bulk account uploads: JSON, CSV,
   * NDJSON): the edge neither parses it as JSON nor requires JSON, and the deadline, not the server's
   * request timeout, bounds the upload. Absent: a JSON body of at most 1 MiB.
   */
  streamedBody?: boolean;
}

/** A whole directory or bank-code table checked, stored and served (family `reference-data`). */
export const REFERENCE_DATA_DEADLINE_MS = 30_000;
const DEADLINE_MS = 3000;
/** A 10,000-entry upload over a slow line, parsed and recorded in one transaction. */
const BATCH_UPLOAD_DEADLINE_MS = 60_000;
/** Test toolkit writes and a test deployment's data: a reset deletes and reloads accounts one by one. */
const TEST_TOOLKIT_DEADLINE_MS = 30_000;
/** A streamed upload of millions of rows takes minutes. */
const BULK_UPLOAD_DEADLINE_MS = 60 * 60 * 1000;

/** One row per family; the first row whose path matches wins. Read by every middleware of the edge. */
export const ROUTE_FAMILIES: readonly RouteFamily[] = [
  {
    // Prometheus text: over mutual TLS on the public edge, open on the internal listeners.
    name: 'metrics',
    paths: ['/metrics'],
    owner: 'each',
    errorFormat: 'nested',
    access: 'scraper',
    apiKeyScope: null,
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    name: 'operations',
    paths: ['/livez', '/readyz', '/health'],
    owner: 'each',
    errorFormat: 'nested',
    access: 'open',
    apiKeyScope: null,
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    // The API document and its readable page (services/gateway/src/api-documents).
    name: 'api-documents',
    paths: ['/openapi.json', '/docs', '/docs/**'],
    owner: 'gateway',
    errorFormat: 'nested',
    access: 'open',
    apiKeyScope: null,
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    // The gateway's pages (/admin and the HTML view of /admin/stats fall under management rows).
    name: 'pages',
    paths: ['/test', '/assets/*'],
    owner: 'gateway',
    errorFormat: 'nested',
    access: 'participant',
    apiKeyScope: null,
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    // Family I, the test toolkit (services/gateway/src/toolkit): test deployments only, 404 in live.
    name: 'test-toolkit',
    paths: ['/test/**'],
    owner: 'gateway',
    errorFormat: 'nested',
    access: 'participant',
    apiKeyScope: 'verify',
    rateBudget: 'test-toolkit',
    deadlineMs: TEST_TOOLKIT_DEADLINE_MS,
    audited: false,
  },
  {
    name: 'matching-management',
    paths: ['/admin/matching/**'],
    owner: 'matching',
    errorFormat: 'flat',
    access: 'admin',
    apiKeyScope: null,
    rateBudget: 'admin',
    deadlineMs: DEADLINE_MS,
    audited: true,
  },
  {
    // Usage, match rates, account status and history for the bank's analysts (services/analytics).
    name: 'analytics',
    paths: ['/analytics/**', '/account/**'],
    owner: 'analytics',
    errorFormat: 'nested',
    access: 'analysts',
    apiKeyScope: 'analytics',
    rateBudget: 'admin',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    // The management figures built from analytics' projections; every call is audited.
    name: 'analytics-management',
    paths: ['GET /admin/stats', 'GET /admin/verifications'],
    owner: 'analytics',
    errorFormat: 'flat',
    access: 'admin',
    apiKeyScope: null,
    rateBudget: 'admin',
    deadlineMs: DEADLINE_MS,
    audited: true,
    auditReads: true,
  },
  {
    // The bank's own account records, uploaded in bulk as a stream (NDJSON or CSV).
    name: 'account-import',
    paths: ['/admin/accounts/import/**'],
    owner: 'gateway',
    errorFormat: 'flat',
    access: 'account-records',
    apiKeyScope: 'accounts',
    rateBudget: 'none',
    deadlineMs: BULK_UPLOAD_DEADLINE_MS,
    audited: true,
    streamedBody: true,
  },
  {
    // A test deployment's data, reset or loaded account by account: management with the toolkit's deadline.
    name: 'test-data',
    paths: ['/admin/reset-test-data', '/admin/import-test-data'],
    owner: 'gateway',
    errorFormat: 'flat',
    access: 'admin',
    apiKeyScope: null,
    rateBudget: 'admin',
    deadlineMs: TEST_TOOLKIT_DEADLINE_MS,
    audited: true,
    auditReads: true,
  },
  {
    // The scheme's reference data, loaded whole (a bank-code table of 200,000 rows takes seconds to
    // check and store): management with a loader's deadline.
    name: 'reference-data',
    paths: ['PUT /admin/scheme-directory', 'PUT /admin/bank-codes'],
    owner: 'gateway',
    errorFormat: 'flat',
    access: 'admin',
    apiKeyScope: null,
    rateBudget: 'admin',
    deadlineMs: REFERENCE_DATA_DEADLINE_MS,
    audited: true,
    auditReads: true,
  },
  {
    name: 'management',
    paths: ['/admin/**', '/health/detailed'],
    owner: 'gateway',
    errorFormat: 'flat',
    access: 'admin',
    apiKeyScope: null,
    rateBudget: 'admin',
    deadlineMs: DEADLINE_MS,
    audited: true,
    // Specification H: every management operation is audited, reads included.
    auditReads: true,
  },
  {
    // EPC inter-PSP API v1.1.1 (POST /vop/v1/payee-verifications): its own error structure.
    name: 'epc',
    paths: ['/vop/v1/**'],
    owner: 'gateway',
    errorFormat: 'epc',
    access: 'participant-certificate',
    apiKeyScope: null,
    rateBudget: 'verifications',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    name: 'scheme',
    paths: ['/vop/**'],
    owner: 'gateway',
    errorFormat: 'scheme',
    access: 'participant-certificate',
    apiKeyScope: null,
    rateBudget: 'verifications',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    // Batches (services/batch), above the families whose patterns would otherwise take them.
    name: 'batch',
    paths: ['/api/v1/batch', '/api/v1/batch/**'],
    owner: 'batch',
    errorFormat: 'flat',
    access: 'participant',
    apiKeyScope: 'verify',
    rateBudget: 'verifications',
    deadlineMs: BATCH_UPLOAD_DEADLINE_MS,
    audited: false,
    streamedBody: true,
  },
  {
    name: 'batch-account-number',
    paths: ['POST /verify/batch'],
    owner: 'batch',
    errorFormat: 'flat',
    access: 'participant',
    apiKeyScope: 'verify',
    rateBudget: 'verifications',
    deadlineMs: BATCH_UPLOAD_DEADLINE_MS,
    audited: false,
    streamedBody: true,
  },
  {
    // Family C's production form; with `Prefer: respond-async` it answers as request-result (design §4).
    name: 'immediate',
    paths: ['POST /api/verify'],
    owner: 'gateway',
    errorFormat: 'flat',
    access: 'participant',
    apiKeyScope: 'verify',
    rateBudget: 'verifications',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    name: 'request-result',
    paths: ['/verify/**', '/api/verify/**'],
    owner: 'gateway',
    errorFormat: 'flat',
    access: 'participant',
    apiKeyScope: 'verify',
    rateBudget: 'verifications',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    name: 'simple',
    paths: ['/api/v1/**'],
    owner: 'gateway',
    errorFormat: 'flat',
    access: 'participant',
    apiKeyScope: 'verify',
    rateBudget: 'verifications',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    // The specification's test endpoints (test deployments only): the sandbox's own budget.
    name: 'sandbox-accounts',
    paths: ['POST /api/accounts', 'DELETE /api/accounts/acc_*'],
    owner: 'gateway',
    errorFormat: 'nested',
    access: 'account-records',
    apiKeyScope: 'accounts',
    rateBudget: 'sandbox-writes',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    name: 'account-records',
    paths: ['/accounts/**'],
    owner: 'gateway',
    errorFormat: 'nested',
    access: 'account-records',
    apiKeyScope: null,
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    name: 'account-records-api',
    paths: ['/api/accounts/**'],
    owner: 'gateway',
    errorFormat: 'nested',
    access: 'account-records',
    apiKeyScope: 'accounts',
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
  {
    // A participant registers receivers for its own verifications and batches; keys need the
    // verify scope (a key that cannot verify has nothing to be told about).
    name: 'webhooks',
    paths: ['/webhooks/**'],
    owner: 'webhook-dispatcher',
    errorFormat: 'nested',
    access: 'participant',
    apiKeyScope: 'verify',
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  },
];

/** The longest deadline of any family: the server's own request timeout must not cut it short. */
export const LONGEST_DEADLINE_MS = Math.max(...ROUTE_FAMILIES.map((family) => family.deadlineMs));

function uncovered(errorFormat: ErrorFormat): RouteFamily {
  return {
    name: 'uncovered',
    paths: [],
    owner: 'gateway',
    errorFormat,
    access: 'nobody',
    apiKeyScope: null,
    rateBudget: 'none',
    deadlineMs: DEADLINE_MS,
    audited: false,
  };
}

/**
 * What a request no row covers gets, and a path not written in its one canonical form (path-form.ts):
 * 404 before authentication and before any router (`refuseUncovered` in access.ts). Nobody may call
 * it, so no spelling falls back to a family that admits a caller. In the flat format; a spelling that,
 * read as sent, falls under a family's pattern (`/webhooks/a%2Fb`, `/vop/verify/`) is answered in that
 * family's format, as its documented 404 is.
 */
export const UNCOVERED_FAMILY: RouteFamily = uncovered('flat');
const UNCOVERED_IN: Record<ErrorFormat, RouteFamily> = {
  flat: UNCOVERED_FAMILY,
  nested: uncovered('nested'),
  scheme: uncovered('scheme'),
  epc: uncovered('epc'),
};

interface CompiledPattern {
  method: string | undefined;
  path: RegExp;
}

function compile(pattern: string): CompiledPattern {
  const [method, path] = pattern.includes(' ') ? pattern.split(' ', 2) : [undefined, pattern];
  const glob = path as string;
  const anyDepth = glob.endsWith('/**');
  const body = (anyDepth ? glob.slice(0, -3) : glob)
    .split('/')
    .map((segment) => segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]+'))
    .join('/');
  return { method, path: new RegExp(`^${body}${anyDepth ? '(?:/.*)?' : ''}$`) };
}

const COMPILED = ROUTE_FAMILIES.map((family) => ({ family, patterns: family.paths.map(compile) }));

function matches(pattern: CompiledPattern, path: string, method: string | undefined): boolean {
  const methodMatches =
    pattern.method === undefined ||
    pattern.method === method ||
    (pattern.method === 'GET' && method === 'HEAD');
  return methodMatches && pattern.path.test(path);
}

/**
 * The family of a request path (no query string), under any base form; rows limited to a method need
 * the method. A path not in canonical form, or one no row covers, is UNCOVERED_FAMILY.
 */
export function familyFor(path: string, method?: string): RouteFamily {
  const canonical = canonicalPath(path);
  const found = COMPILED.find(({ patterns }) =>
    patterns.some((pattern) => matches(pattern, canonical, method)),
  );
  if (found === undefined) return UNCOVERED_FAMILY;
  return isCanonicalPath(path) ? found.family : UNCOVERED_IN[found.family.errorFormat];
}

/** Whether a family is the one of a request no row covers (or not spelt canonically). */
export function isUncovered(family: RouteFamily): boolean {
  return family.access === 'nobody';
}

/** Whether a request path belongs to a family this service owns (its router or the edge's forwarder). */
export function ownedBy(owner: ServiceName): (path: string, method?: string) => boolean {
  return (path, method) => familyFor(path, method).owner === owner;
}
