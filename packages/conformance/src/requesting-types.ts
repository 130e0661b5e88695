import type { EpcMatchCode } from './types.js';

/**
 * Requesting-side conformance: what a requesting PSP must send to a responder's endpoint and how it
 * must treat each answer and error. A case scripts a responder (and optionally a second endpoint),
 * asks the requester one check and holds both the request received and the requester's verdict.
 * The interfaces are structural, so any requester and scripted responder can be run.
 */
export type RequestingScript =
  | { kind: 'answer'; body: unknown }
  | { kind: 'status'; status: number; body?: unknown }
  | { kind: 'slow'; afterMs: number; body: unknown }
  | { kind: 'malformed' }
  | { kind: 'silent' }
  /** Reads the request and drops the connection without an answer. */
  | { kind: 'drop' }
  /** The port is closed: the connection is refused. */
  | { kind: 'refused' }
  /** The server presents a certificate from a CA the requester does not trust. */
  | { kind: 'foreign-certificate' };

export interface RequestingCheck {
  iban: string;
  name?: string;
  identification?: { lei?: string; others?: { scheme: string; id: string }[] };
  partyAgentBic: string;
  requestingAgentBic: string;
  remittance?: string;
}

export type RequestingExpectation =
  | {
      kind: 'answered';
      partyNameMatch?: EpcMatchCode | 'absent';
      partyIdMatch?: Exclude<EpcMatchCode, 'CMTC'> | 'absent';
      matchedName?: 'present' | 'absent';
    }
  | { kind: 'failed'; reason: string };

export interface RequestingCase {
  /** Stable id, e.g. `REQ-01`. */
  id: string;
  description: string;
  check: RequestingCheck;
  /** The priority-1 endpoint's behaviour. */
  first: RequestingScript;
  /** When given, a priority-2 endpoint with this behaviour. */
  second?: RequestingScript;
  /** Defaults to 1,000 ms. */
  deadlineMs?: number;
  /** Which endpoints must have received the check, each exactly once (no retry may double it). */
  reached: { first: boolean; second?: boolean };
  expect: RequestingExpectation;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  clientCertificate: unknown;
}

/** A responder the runner can script (packages/testing's scripted responder is one). */
export interface ResponderUnderTest {
  readonly uri: string;
  script(
    next: Exclude<RequestingScript, { kind: 'refused' } | { kind: 'foreign-certificate' }>,
  ): void;
  requests(): readonly ReceivedRequest[];
  clearRequests(): void;
  presentForeignCertificate(): Promise<void>;
  presentOwnCertificate(): Promise<void>;
  refuseConnections(): Promise<void>;
  acceptConnections(): Promise<void>;
}

export type RequesterVerdict =
  | {
      kind: 'answered';
      answer: { partyNameMatch?: string; matchedName?: string; partyIdMatch?: string };
    }
  | { kind: 'failed'; reason: string; detail: string };

/** The requester under test (packages/requester's `createRequester` is one). */
export interface RequesterUnderTest {
  ask(
    responder: { participant: string; bic: string; endpoints: { uri: string; priority: number }[] },
    check: RequestingCheck,
    options: { deadlineMs: number },
  ): Promise<RequesterVerdict>;
}

export interface RequestingCaseResult {
  id: string;
  description: string;
  outcome: 'passed' | 'failed';
  /** What did not hold, empty when passed. */
  failures: string[];
  verdict?: RequesterVerdict;
  durationMs: number;
}
