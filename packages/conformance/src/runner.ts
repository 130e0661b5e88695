import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { placeholderFiller } from './placeholders.js';
import type {
  CaseResult,
  ConformanceCase,
  ConformanceExpectation,
  ConformanceFixture,
  CredentialName,
} from './types.js';

/** A client certificate and its key, PEM. */
export interface ClientCredential {
  certPem: string;
  keyPem: string;
}

/** Where the runner may connect: the gateway's address guard (`@vop/address-guard`). */
export interface ConnectionGuard {
  /** Why a URL may not be requested (its scheme, or a literal address); `undefined`: it may. */
  checkBeforeConnect(url: URL): string | undefined;
  /** Resolves a host for a connection, failing it when an address found may not be reached. */
  lookup: LookupFunction;
}

/** A guarded run's failure for a request without an answer, whatever the cause. */
export const TARGET_UNREACHABLE = 'request failed: the target could not be reached';

export interface ConformanceRunOptions {
  /** The responder, e.g. https://127.0.0.1:8443 (a path prefix is kept). */
  baseUrl: string;
  /** The CA bundle the responder's server certificate chains to. */
  caPem: string;
  /** The certificates to present; a case whose credential is not given is skipped. */
  credentials: Partial<Record<Exclude<CredentialName, 'none'>, ClientCredential>>;
  fixture: ConformanceFixture;
  cases: readonly ConformanceCase[];
  /** How long one request may take (default 5 s, the scheme's limit). */
  timeoutMs?: number;
  now?: () => Date;
  /** Told of each case as it ends, before the next starts. */
  onResult?: (result: CaseResult) => Promise<void> | void;
  /**
   * Connecting for a caller (the toolkit's `target`): each URL and each connection's resolved
   * address are judged by the guard, and a request without an answer fails with
   * TARGET_UNREACHABLE whatever the cause (closed port, no TLS, refused address, timeout), which
   * goes to `onUnreachable` only. Without a guard the failure says the cause (the CLI).
   */
  guard?: ConnectionGuard;
  /** A guarded run's cause of each TARGET_UNREACHABLE, for the log. */
  onUnreachable?: (cause: Error) => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RESPONSE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3,9}(Z|[+-]\d{2}:\d{2})$/;
const ERROR_CODES = ['FORMAT_ERROR', 'CLIENT_INVALID', 'CLIENT_INCONSISTENT', 'TIMESTAMP_INVALID'];

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(
  agent: https.Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
  timeoutMs: number,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method,
        agent,
        headers: {
          ...headers,
          ...(payload !== undefined && { 'Content-Length': String(Buffer.byteLength(payload)) }),
        },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    if (payload !== undefined) request.write(payload);
    request.end();
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function expectCode(
  failures: string[],
  field: string,
  actual: unknown,
  expected: ConformanceExpectation['partyNameMatch'],
): void {
  if (expected === undefined) return;
  if (expected === 'absent') {
    if (actual !== undefined) failures.push(`${field}: expected absent, got ${String(actual)}`);
    return;
  }
  const allowed = Array.isArray(expected) ? expected : [expected];
  if (!allowed.includes(actual as never))
    failures.push(`${field}: expected ${allowed.join(' or ')}, got ${String(actual)}`);
}

/** What a response breaks of a case's expectation and of the rules every answer follows. */
export function checkResponse(
  expect: ConformanceExpectation,
  sentRequestId: string | undefined,
  response: RawResponse,
): { failures: string[]; body: unknown } {
  const failures: string[] = [];
  let body: unknown;
  try {
    body = response.text.length > 0 ? JSON.parse(response.text) : undefined;
  } catch {
    failures.push('the body is not JSON');
  }
  if (response.status !== expect.status)
    failures.push(`status: expected ${expect.status}, got ${response.status}`);
  const echoed = single(response.headers['x-request-id']);
  if (echoed === undefined) failures.push('X-Request-ID missing from the answer');
  else if (sentRequestId !== undefined && echoed !== sentRequestId)
    failures.push(`X-Request-ID: expected the echo ${sentRequestId}, got ${echoed}`);
  else if (sentRequestId === undefined && !UUID.test(echoed))
    failures.push(`X-Request-ID: ${echoed} is not a UUID`);
  const timestamp = single(response.headers['x-response-timestamp']);
  if (timestamp === undefined || !RESPONSE_TIMESTAMP.test(timestamp))
    failures.push(`X-Response-Timestamp: missing or not ISO 8601 with milliseconds (${timestamp})`);
  const fields = (body ?? {}) as Record<string, unknown>;
  if (response.status >= 400) {
    if (typeof fields.type !== 'string' || fields.type.length === 0)
      failures.push('VerificationOfPayeeError.type missing');
    if (!ERROR_CODES.includes(fields.code as string))
      failures.push(`VerificationOfPayeeError.code ${String(fields.code)} is not in the code list`);
    if (expect.errorCode !== undefined && fields.code !== expect.errorCode)
      failures.push(`code: expected ${expect.errorCode}, got ${String(fields.code)}`);
  } else if (response.status === 200) {
    expectCode(failures, 'partyNameMatch', fields.partyNameMatch, expect.partyNameMatch);
    expectCode(failures, 'partyIdMatch', fields.partyIdMatch, expect.partyIdMatch);
    if (fields.matchedName !== undefined && fields.partyNameMatch !== 'CMTC')
      failures.push('matchedName outside CMTC');
    if (typeof fields.matchedName === 'string' && fields.matchedName.length > 140)
      failures.push('matchedName longer than 140 characters');
    if (expect.matchedName === 'present' && typeof fields.matchedName !== 'string')
      failures.push('matchedName expected');
    if (expect.matchedName === 'absent' && fields.matchedName !== undefined)
      failures.push('matchedName not expected');
  }
  return { failures, body };
}

/**
 * Runs the cases one after another against a responder over mutual TLS and reports each: passed,
 * failed (with what did not hold) or skipped (no certificate given for it).
 */
export async function runConformance(options: ConformanceRunOptions): Promise<CaseResult[]> {
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 5000;
  const agents = new Map<CredentialName, https.Agent>();
  const agentFor = (name: CredentialName): https.Agent | undefined => {
    const existing = agents.get(name);
    if (existing) return existing;
    const credential = name === 'none' ? undefined : options.credentials[name];
    if (name !== 'none' && credential === undefined) return undefined;
    const agent = new https.Agent({
      keepAlive: true,
      ca: options.caPem,
      ...(credential && { cert: credential.certPem, key: credential.keyPem }),
      ...(options.guard && { lookup: options.guard.lookup }),
    });
    agents.set(name, agent);
    return agent;
  };
  const base = options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl;
  const results: CaseResult[] = [];
  const record = async (result: CaseResult): Promise<void> => {
    results.push(result);
    await options.onResult?.(result);
  };
  try {
    for (const testCase of options.cases) {
      const started = process.hrtime.bigint();
      const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
      const summary = {
        id: testCase.id,
        group: testCase.group,
        description: testCase.description,
      };
      const credential = testCase.credential ?? 'participant';
      const agent = agentFor(credential);
      if (agent === undefined) {
        await record({
          ...summary,
          outcome: 'skipped',
          failures: [],
          skipReason: `no ${credential} certificate given`,
          durationMs: 0,
        });
        continue;
      }
      const fill = placeholderFiller(options.fixture, now());
      const request = fill(testCase.request);
      const payload =
        request.raw ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
      let response: RawResponse;
      try {
        const url = new URL(`${base}${request.path}`);
        const refusal = options.guard?.checkBeforeConnect(url);
        if (refusal !== undefined) throw new Error(`${refusal}: ${url.host}`);
        response = await send(agent, url, request.method, request.headers, payload, timeoutMs);
      } catch (error) {
        if (options.guard) options.onUnreachable?.(error as Error);
        await record({
          ...summary,
          outcome: 'failed',
          failures: [
            options.guard ? TARGET_UNREACHABLE : `request failed: ${(error as Error).message}`,
          ],
          durationMs: elapsed(),
        });
        continue;
      }
      const sentId = request.headers['X-Request-ID'];
      const { failures, body } = checkResponse(testCase.expect, sentId, response);
      await record({
        ...summary,
        outcome: failures.length === 0 ? 'passed' : 'failed',
        failures,
        status: response.status,
        body,
        durationMs: elapsed(),
      });
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return results;
}
