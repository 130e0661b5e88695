import { EPC_PATH, EPC_RESPONDER_CASES } from '../epc-responder-cases.js';
import type {
  ConformanceCase,
  ConformanceExpectation,
  ConformanceGroup,
  ConformanceRequest,
} from '../types.js';

const HEADERS = {
  'Content-Type': 'application/json',
  'X-Request-ID': '{{uuid}}',
  'X-Request-Timestamp': '{{now}}',
};

export const RESPONDER = { financialInstitutionId: { bicfi: '{{responderBic}}' } };
export const REQUESTER = { financialInstitutionId: { bicfi: '{{requesterBic}}' } };

/** A scheme request body: the party as given, the account, the responder and the requester. */
export function verification(
  party: Record<string, unknown>,
  iban = '{{person.iban}}',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    party,
    partyAccount: { iban },
    partyAgent: RESPONDER,
    requestingAgent: REQUESTER,
    ...extra,
  };
}

export function post(
  body: unknown,
  headers: Record<string, string | undefined> = {},
): ConformanceRequest {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...HEADERS, ...headers }))
    if (value !== undefined) merged[name] = value;
  return { method: 'POST', path: EPC_PATH, headers: merged, body };
}

export const formatError = { status: 400, errorCode: 'FORMAT_ERROR' } as const;
export const clientInvalid = { status: 401, errorCode: 'CLIENT_INVALID' } as const;
export const clientInconsistent = { status: 401, errorCode: 'CLIENT_INCONSISTENT' } as const;

/** A case of one group, numbered within it: `S139-N-07`. */
export function numbered(
  prefix: string,
  group: ConformanceGroup,
  cases: readonly Omit<ConformanceCase, 'id' | 'group'>[],
): ConformanceCase[] {
  return cases.map((each, index) => ({
    id: `S139-${prefix}-${String(index + 1).padStart(2, '0')}`,
    group,
    ...each,
  }));
}

/** One of the EPC responding-side cases, taken as it is into a scheme group. */
export function reused(
  epcId: string,
  description?: string,
  expect?: ConformanceExpectation,
): Omit<ConformanceCase, 'id' | 'group'> {
  const found = EPC_RESPONDER_CASES.find((each) => each.id === epcId);
  if (found === undefined) throw new Error(`no EPC case ${epcId}`);
  return {
    description: `${description ?? found.description} (${epcId})`,
    ...(found.credential !== undefined && { credential: found.credential }),
    request: found.request,
    expect: expect ?? found.expect,
  };
}
