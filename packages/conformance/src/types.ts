/**
 * One conformance case, as data: it can be listed, filtered, serialised and run against any
 * responder. Strings may hold placeholders (`{{person.iban}}`, `{{uuid}}`, `{{now}}`, …) that the
 * runner fills from the fixture and the clock; see `placeholders.ts`.
 */
export interface ConformanceCase {
  /** Stable id, e.g. `EPC-T-02`. */
  id: string;
  group: ConformanceGroup;
  description: string;
  /** Which client certificate the runner presents; `participant` unless said otherwise. */
  credential?: CredentialName;
  request: ConformanceRequest;
  expect: ConformanceExpectation;
}

export type ConformanceGroup =
  | 'headers'
  | 'timestamps'
  | 'errors'
  | 'character-set'
  | 'empty-fields'
  | 'identification'
  | 'outcomes'
  | 'directory'
  // The four groups of the scheme139-25 suite.
  | 'name'
  | 'bic'
  | 'lei'
  | 'id';

/**
 * `participant`: a scheme participant of the responder's environment whose BIC is
 * `{{requesterBic}}`; `non-participant`: a certificate the responder's CA trusts whose holder is in
 * no directory; `none`: no client certificate at all.
 */
export type CredentialName = 'participant' | 'non-participant' | 'none';

export interface ConformanceRequest {
  method: 'POST' | 'GET' | 'PUT';
  path: string;
  /** Header values may hold placeholders; a header left out is not sent. */
  headers: Record<string, string>;
  /** JSON body (placeholders inside strings are filled), or `raw` for a body sent as it is. */
  body?: unknown;
  raw?: string;
}

export type EpcMatchCode = 'MTCH' | 'CMTC' | 'NMTC' | 'NOAP';

export interface ConformanceExpectation {
  status: 200 | 400 | 401 | 500;
  /** On an error: the VerificationOfPayeeError code. */
  errorCode?: 'FORMAT_ERROR' | 'CLIENT_INVALID' | 'CLIENT_INCONSISTENT' | 'TIMESTAMP_INVALID';
  /** On 200: the expected partyNameMatch (one of several when given a list); `absent` if none. */
  partyNameMatch?: EpcMatchCode | EpcMatchCode[] | 'absent';
  partyIdMatch?: EpcMatchCode | EpcMatchCode[] | 'absent';
  /** On 200: whether matchedName is there (EPC: only on CMTC). */
  matchedName?: 'present' | 'absent';
}

/** The responder's test data the cases refer to; another PSP's toolkit run supplies its own. */
export interface ConformanceFixture {
  /** A BIC the responder answers for (partyAgent). */
  responderBic: string;
  /** The same bank as an 8-character BIC, when the responder accepts it. */
  responderBic8: string;
  /** A BIC of another scheme participant, not the responder's. */
  foreignBic: string;
  /** The requestingAgent BIC of the `participant` certificate's holder. */
  requesterBic: string;
  /** A BIC the directory gives to another participant than the certificate's. */
  otherParticipantBic: string;
  person: {
    iban: string;
    name: string;
    /** The same name written with Latin diacritics (e.g. Érika for Erika). */
    nameWithDiacritics: string;
    /** A different person's name. */
    otherName: string;
  };
  organisation: {
    iban: string;
    name: string;
    closeName: string;
    lei: string;
    otherLei: string;
    /** A TXID the organisation's account holds. */
    txid: string;
  };
  /** A valid IBAN the responder does not hold. */
  unknownIban: string;
}

export interface CaseResult {
  id: string;
  group: ConformanceGroup;
  description: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** What did not hold, empty when passed. */
  failures: string[];
  /** Why a skipped case was not sent. */
  skipReason?: string;
  status?: number;
  body?: unknown;
  durationMs: number;
}
