import type { RequestingCase, RequestingCheck } from './requesting-types.js';

// Requesting-side cases for the EPC inter-PSP API v1.1.1 (EPC103-24): the request a requesting PSP
// sends (mutual TLS, X-Request-ID, X-Request-Timestamp, the body with only what the payer gave,
// requestingAgent our BIC, partyAgent the payee's) and how it treats each answer: the v1.1.1 answer
// rules, error statuses, broken bodies, deadlines, and endpoints tried in priority order only while
// nothing can have reached the responder.

const byName: RequestingCheck = {
  iban: 'DE89370400440532013000',
  name: 'Erika Mustermann',
  partyAgentBic: 'COBADEFFXXX',
  requestingAgentBic: 'VOPBDEFFXXX',
};
const byIdentification: RequestingCheck = {
  iban: 'FR1420041010050500013M02606',
  identification: { lei: '5299000J2N45DDNE4Y28' },
  partyAgentBic: 'BNPAFRPPXXX',
  requestingAgentBic: 'VOPBDEFFXXX',
};
const byBoth: RequestingCheck = {
  ...byIdentification,
  name: 'Muster SARL',
  identification: { others: [{ scheme: 'SREN', id: '123456789' }] },
};

const answer = (body: unknown) => ({ kind: 'answer', body }) as const;
const error = (status: number, code: string) =>
  ({ kind: 'status', status, body: { type: `urn:test:${code}`, code } }) as const;
const failed = (reason: string) => ({ kind: 'failed', reason }) as const;
const reachedFirst = { first: true } as const;

export const REQUESTING_CASES: readonly RequestingCase[] = [
  {
    id: 'REQ-01',
    description: 'A name check answered MTCH: the request is complete and the answer kept',
    check: byName,
    first: answer({ partyNameMatch: 'MTCH' }),
    reached: reachedFirst,
    expect: {
      kind: 'answered',
      partyNameMatch: 'MTCH',
      partyIdMatch: 'absent',
      matchedName: 'absent',
    },
  },
  {
    id: 'REQ-02',
    description: 'CMTC with the matched name: the name is passed on to the payer',
    check: byName,
    first: answer({ partyNameMatch: 'CMTC', matchedName: 'Erika Musterman' }),
    reached: reachedFirst,
    expect: { kind: 'answered', partyNameMatch: 'CMTC', matchedName: 'present' },
  },
  {
    id: 'REQ-03',
    description: 'NMTC is an answer, not a failure',
    check: byName,
    first: answer({ partyNameMatch: 'NMTC' }),
    reached: reachedFirst,
    expect: { kind: 'answered', partyNameMatch: 'NMTC', matchedName: 'absent' },
  },
  {
    id: 'REQ-04',
    description: 'NOAP (matching not possible) is an answer, not a failure',
    check: byName,
    first: answer({ partyNameMatch: 'NOAP' }),
    reached: reachedFirst,
    expect: { kind: 'answered', partyNameMatch: 'NOAP' },
  },
  {
    id: 'REQ-05',
    description: 'An identification-only check sends no name and takes partyIdMatch',
    check: byIdentification,
    first: answer({ partyIdMatch: 'MTCH' }),
    reached: reachedFirst,
    expect: { kind: 'answered', partyIdMatch: 'MTCH', partyNameMatch: 'absent' },
  },
  {
    id: 'REQ-06',
    description: 'A name and identification check takes both answers',
    check: byBoth,
    first: answer({ partyNameMatch: 'NMTC', partyIdMatch: 'MTCH' }),
    reached: reachedFirst,
    expect: { kind: 'answered', partyNameMatch: 'NMTC', partyIdMatch: 'MTCH' },
  },
  {
    id: 'REQ-07',
    description: 'The payer’s remittance text travels as the one unstructured entry',
    check: { ...byName, remittance: 'Invoice 2026-42' },
    first: answer({ partyNameMatch: 'MTCH' }),
    reached: reachedFirst,
    expect: { kind: 'answered', partyNameMatch: 'MTCH' },
  },
  {
    id: 'REQ-08',
    description: 'A matchedName beside MTCH is tolerated and not passed on',
    check: byName,
    first: answer({ partyNameMatch: 'MTCH', matchedName: 'Erika Mustermann' }),
    reached: reachedFirst,
    expect: { kind: 'answered', partyNameMatch: 'MTCH', matchedName: 'absent' },
  },
  {
    id: 'REQ-09',
    description: '400 FORMAT_ERROR: a responder error, not an answer',
    check: byName,
    first: error(400, 'FORMAT_ERROR'),
    reached: reachedFirst,
    expect: failed('RESPONDER_ERROR'),
  },
  {
    id: 'REQ-10',
    description: '401 CLIENT_INVALID: a responder error, not an answer',
    check: byName,
    first: error(401, 'CLIENT_INVALID'),
    reached: reachedFirst,
    expect: failed('RESPONDER_ERROR'),
  },
  {
    id: 'REQ-11',
    description: '500: a responder error, never a silent NMTC',
    check: byName,
    first: { kind: 'status', status: 500, body: { type: 'urn:test:internal' } },
    reached: reachedFirst,
    expect: failed('RESPONDER_ERROR'),
  },
  {
    id: 'REQ-12',
    description: '200 with a body that is not JSON: a responder error',
    check: byName,
    first: { kind: 'malformed' },
    reached: reachedFirst,
    expect: failed('RESPONDER_ERROR'),
  },
  {
    id: 'REQ-13',
    description: 'partyNameMatch with a word outside the code list: an invalid answer',
    check: byName,
    first: answer({ partyNameMatch: 'PARTIAL' }),
    reached: reachedFirst,
    expect: failed('RESPONDER_INVALID_ANSWER'),
  },
  {
    id: 'REQ-14',
    description:
      'matchedName beside NMTC (a name revealed without a close match): an invalid answer',
    check: byName,
    first: answer({ partyNameMatch: 'NMTC', matchedName: 'Erika Mustermann' }),
    reached: reachedFirst,
    expect: failed('RESPONDER_INVALID_ANSWER'),
  },
  {
    id: 'REQ-15',
    description: 'No partyNameMatch for a name check: an invalid answer',
    check: byName,
    first: answer({}),
    reached: reachedFirst,
    expect: failed('RESPONDER_INVALID_ANSWER'),
  },
  {
    id: 'REQ-16',
    description: 'partyIdMatch for a check that sent no identification: an invalid answer',
    check: byName,
    first: answer({ partyNameMatch: 'MTCH', partyIdMatch: 'MTCH' }),
    reached: reachedFirst,
    expect: failed('RESPONDER_INVALID_ANSWER'),
  },
  {
    id: 'REQ-17',
    description: 'An answer after the deadline: a timeout',
    check: byName,
    first: { kind: 'slow', afterMs: 1_500, body: { partyNameMatch: 'MTCH' } },
    deadlineMs: 500,
    reached: reachedFirst,
    expect: failed('RESPONDER_TIMEOUT'),
  },
  {
    id: 'REQ-18',
    description: 'A responder that takes the request and never answers: a timeout',
    check: byName,
    first: { kind: 'silent' },
    deadlineMs: 500,
    reached: reachedFirst,
    expect: failed('RESPONDER_TIMEOUT'),
  },
  {
    id: 'REQ-19',
    description: 'Priority 1 refuses the connection: priority 2 is asked and answers',
    check: byName,
    first: { kind: 'refused' },
    second: answer({ partyNameMatch: 'MTCH' }),
    reached: { first: false, second: true },
    expect: { kind: 'answered', partyNameMatch: 'MTCH' },
  },
  {
    id: 'REQ-20',
    description: 'Priority 1 times out: priority 2 is NOT asked (it may have received the check)',
    check: byName,
    first: { kind: 'silent' },
    second: answer({ partyNameMatch: 'MTCH' }),
    deadlineMs: 500,
    reached: { first: true, second: false },
    expect: failed('RESPONDER_TIMEOUT'),
  },
  {
    id: 'REQ-21',
    description: 'Priority 1 answers 500: priority 2 is NOT asked (the check was received)',
    check: byName,
    first: error(500, 'FORMAT_ERROR'),
    second: answer({ partyNameMatch: 'MTCH' }),
    reached: { first: true, second: false },
    expect: failed('RESPONDER_ERROR'),
  },
  {
    id: 'REQ-22',
    description: 'A server certificate from an untrusted CA: a TLS failure, nothing sent',
    check: byName,
    first: { kind: 'foreign-certificate' },
    reached: { first: false },
    expect: failed('RESPONDER_TLS_FAILURE'),
  },
  {
    id: 'REQ-23',
    description: 'Priority 1 drops the connection after the request: priority 2 is NOT asked',
    check: byName,
    first: { kind: 'drop' },
    second: answer({ partyNameMatch: 'MTCH' }),
    reached: { first: true, second: false },
    expect: failed('RESPONDER_UNAVAILABLE'),
  },
];
