import { isDeepStrictEqual } from 'node:util';
import { REQUESTING_CASES } from './requesting-cases.js';
import type {
  ReceivedRequest,
  RequesterUnderTest,
  RequestingCase,
  RequestingCaseResult,
  RequestingCheck,
  RequestingScript,
  ResponderUnderTest,
} from './requesting-types.js';

/** Two scripted endpoints of one responder: priority 1 and priority 2. */
export interface RequestingResponders {
  first: ResponderUnderTest;
  second: ResponderUnderTest;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3,9}(Z|[+-]\d{2}:\d{2})$/;
/** The skew a v1.1.1 responder tolerates. */
const TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;
const DEFAULT_DEADLINE_MS = 1_000;

/** Runs every requesting case in turn; each names its own participant, so no breaker is shared. */
export async function runRequestingConformance(
  requester: RequesterUnderTest,
  responders: RequestingResponders,
  cases: readonly RequestingCase[] = REQUESTING_CASES,
): Promise<RequestingCaseResult[]> {
  const results: RequestingCaseResult[] = [];
  for (const testCase of cases)
    results.push(await runRequestingCase(requester, responders, testCase));
  return results;
}

export async function runRequestingCase(
  requester: RequesterUnderTest,
  responders: RequestingResponders,
  testCase: RequestingCase,
): Promise<RequestingCaseResult> {
  const started = performance.now();
  const endpoints =
    testCase.second === undefined ? [responders.first] : [responders.first, responders.second];
  const scripts = [testCase.first, testCase.second];
  for (const [index, endpoint] of endpoints.entries()) {
    endpoint.clearRequests();
    await arrange(endpoint, scripts[index] as RequestingScript);
  }
  try {
    const verdict = await requester.ask(
      {
        participant: `PSDXX-CONFORMANCE-${testCase.id}`,
        bic: testCase.check.partyAgentBic,
        endpoints: endpoints.map((endpoint, index) => ({ uri: endpoint.uri, priority: index + 1 })),
      },
      testCase.check,
      { deadlineMs: testCase.deadlineMs ?? DEFAULT_DEADLINE_MS },
    );
    const failures = [
      ...reachedFailures(testCase, endpoints),
      ...endpoints
        .flatMap((endpoint) => endpoint.requests())
        .flatMap((request) => requestFailures(request, testCase.check)),
      ...verdictFailures(testCase, verdict),
    ];
    return {
      id: testCase.id,
      description: testCase.description,
      outcome: failures.length === 0 ? 'passed' : 'failed',
      failures,
      verdict,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    for (const [index, endpoint] of endpoints.entries()) await restore(endpoint, scripts[index]);
  }
}

async function arrange(endpoint: ResponderUnderTest, script: RequestingScript): Promise<void> {
  if (script.kind === 'refused') return endpoint.refuseConnections();
  if (script.kind === 'foreign-certificate') return endpoint.presentForeignCertificate();
  endpoint.script(script);
}

async function restore(
  endpoint: ResponderUnderTest,
  script: RequestingScript | undefined,
): Promise<void> {
  if (script?.kind === 'refused') await endpoint.acceptConnections();
  if (script?.kind === 'foreign-certificate') await endpoint.presentOwnCertificate();
}

function reachedFailures(testCase: RequestingCase, endpoints: ResponderUnderTest[]): string[] {
  const wanted = [testCase.reached.first, testCase.reached.second ?? false];
  return endpoints.flatMap((endpoint, index) => {
    const received = endpoint.requests().length;
    const expected = wanted[index] ? 1 : 0;
    return received === expected
      ? []
      : [`endpoint ${index + 1} received ${received} requests, expected ${expected}`];
  });
}

/** What every request that reached a responder must hold. */
export function requestFailures(request: ReceivedRequest, check: RequestingCheck): string[] {
  const failures: string[] = [];
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  if (request.method !== 'POST') failures.push(`method ${request.method}, expected POST`);
  if (!request.path.endsWith('/payee-verifications')) failures.push(`path ${request.path}`);
  if (!/^application\/json\b/.test(header('content-type') ?? ''))
    failures.push('Content-Type is not application/json');
  if (!UUID.test(header('x-request-id') ?? '')) failures.push('X-Request-ID is not a UUID');
  const timestamp = header('x-request-timestamp') ?? '';
  if (!TIMESTAMP.test(timestamp))
    failures.push('X-Request-Timestamp is not ISO 8601 with milliseconds and a zone');
  else if (Math.abs(Date.parse(timestamp) - Date.now()) > TIMESTAMP_TOLERANCE_MS)
    failures.push('X-Request-Timestamp is more than 5 minutes off');
  if (request.clientCertificate === undefined) failures.push('no client certificate presented');
  const expected = {
    party: {
      ...(check.name !== undefined && { name: check.name }),
      ...(check.identification !== undefined && { identification: check.identification }),
    },
    partyAccount: { iban: check.iban },
    partyAgent: { financialInstitutionId: { bicfi: check.partyAgentBic } },
    requestingAgent: { financialInstitutionId: { bicfi: check.requestingAgentBic } },
    ...(check.remittance !== undefined && {
      unstructuredRemittanceInformation: [check.remittance],
    }),
  };
  if (!isDeepStrictEqual(request.body, expected))
    failures.push(
      'the body is not the EPC request of the check (only what was given, both agents)',
    );
  return failures;
}

function verdictFailures(
  testCase: RequestingCase,
  verdict: Awaited<ReturnType<RequesterUnderTest['ask']>>,
): string[] {
  const expected = testCase.expect;
  if (expected.kind === 'failed') {
    if (verdict.kind !== 'failed') return [`answered, expected failed ${expected.reason}`];
    return verdict.reason === expected.reason
      ? []
      : [`failed ${verdict.reason}, expected ${expected.reason}`];
  }
  if (verdict.kind !== 'answered')
    return [`failed ${verdict.reason} (${verdict.detail}), expected an answer`];
  const failures: string[] = [];
  const field = (name: 'partyNameMatch' | 'partyIdMatch', want: string | undefined) => {
    if (want === undefined) return;
    const got = verdict.answer[name] ?? 'absent';
    if (got !== want) failures.push(`${name} ${got}, expected ${want}`);
  };
  field('partyNameMatch', expected.partyNameMatch);
  field('partyIdMatch', expected.partyIdMatch);
  if (expected.matchedName !== undefined) {
    const got = verdict.answer.matchedName === undefined ? 'absent' : 'present';
    if (got !== expected.matchedName)
      failures.push(`matchedName ${got}, expected ${expected.matchedName}`);
  }
  return failures;
}
