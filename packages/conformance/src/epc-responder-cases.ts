import type { ConformanceCase, ConformanceRequest } from './types.js';

// Responding-side cases for the EPC inter-PSP API v1.1.1 (EPC103-24), written from the published
// descriptions: required request headers (X-Request-ID, X-Request-Timestamp), the response headers
// (X-Request-ID echoed, X-Response-Timestamp) on every answer, VerificationOfPayeeError with its four
// codes and 400/401/500, Latin characters only, no empty fields, at most one Max140 remittance entry,
// the identification code list, NOAP when matching is not possible, and directory adherence.

export const EPC_PATH = '/vop/v1/payee-verifications';

const HEADERS = {
  'Content-Type': 'application/json',
  'X-Request-ID': '{{uuid}}',
  'X-Request-Timestamp': '{{now}}',
};

const agents = {
  partyAgent: { financialInstitutionId: { bicfi: '{{responderBic}}' } },
  requestingAgent: { financialInstitutionId: { bicfi: '{{requesterBic}}' } },
};

const byName = (name: string, iban = '{{person.iban}}') => ({
  party: { name },
  partyAccount: { iban },
  ...agents,
});

const byIdentification = (identification: unknown) => ({
  party: { identification },
  partyAccount: { iban: '{{organisation.iban}}' },
  ...agents,
});

const post = (
  body: unknown,
  headers: Record<string, string | undefined> = {},
): ConformanceRequest => {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...HEADERS, ...headers }))
    if (value !== undefined) merged[name] = value;
  return { method: 'POST', path: EPC_PATH, headers: merged, body };
};

const formatError = { status: 400, errorCode: 'FORMAT_ERROR' } as const;
const timestampInvalid = { status: 400, errorCode: 'TIMESTAMP_INVALID' } as const;
const valid = byName('{{person.name}}');

export const EPC_RESPONDER_CASES: readonly ConformanceCase[] = [
  // Headers
  {
    id: 'EPC-H-01',
    group: 'headers',
    description:
      'A complete request is answered 200 with X-Request-ID echoed and X-Response-Timestamp',
    request: post(valid),
    expect: { status: 200, partyNameMatch: 'MTCH', matchedName: 'absent' },
  },
  {
    id: 'EPC-H-02',
    group: 'headers',
    description: 'Without X-Request-ID: 400 FORMAT_ERROR',
    request: post(valid, { 'X-Request-ID': undefined }),
    expect: formatError,
  },
  {
    id: 'EPC-H-03',
    group: 'headers',
    description: 'X-Request-ID that is not a UUID: 400 FORMAT_ERROR, the value echoed',
    request: post(valid, { 'X-Request-ID': 'request-42' }),
    expect: formatError,
  },
  {
    id: 'EPC-H-04',
    group: 'headers',
    description: 'X-Request-ID in upper case is a UUID all the same',
    request: post(valid, { 'X-Request-ID': '{{UUID}}' }),
    expect: { status: 200, partyNameMatch: 'MTCH' },
  },
  // Timestamps
  {
    id: 'EPC-T-01',
    group: 'timestamps',
    description: 'Without X-Request-Timestamp: 400 TIMESTAMP_INVALID',
    request: post(valid, { 'X-Request-Timestamp': undefined }),
    expect: timestampInvalid,
  },
  {
    id: 'EPC-T-02',
    group: 'timestamps',
    description: 'X-Request-Timestamp without milliseconds: 400 TIMESTAMP_INVALID',
    request: post(valid, { 'X-Request-Timestamp': '{{nowSeconds}}' }),
    expect: timestampInvalid,
  },
  {
    id: 'EPC-T-03',
    group: 'timestamps',
    description: 'X-Request-Timestamp with milliseconds and a +02:00 offset is accepted',
    request: post(valid, { 'X-Request-Timestamp': '{{nowPlus0200}}' }),
    expect: { status: 200, partyNameMatch: 'MTCH' },
  },
  {
    id: 'EPC-T-04',
    group: 'timestamps',
    description: 'X-Request-Timestamp that is no date: 400 TIMESTAMP_INVALID',
    request: post(valid, { 'X-Request-Timestamp': 'yesterday' }),
    expect: timestampInvalid,
  },
  {
    id: 'EPC-T-05',
    group: 'timestamps',
    description: 'X-Request-Timestamp as a date only: 400 TIMESTAMP_INVALID',
    request: post(valid, { 'X-Request-Timestamp': '{{today}}' }),
    expect: timestampInvalid,
  },
  {
    id: 'EPC-T-06',
    group: 'timestamps',
    description: 'X-Request-Timestamp an hour old: 400 TIMESTAMP_INVALID',
    request: post(valid, { 'X-Request-Timestamp': '{{now-1h}}' }),
    expect: timestampInvalid,
  },
  {
    id: 'EPC-T-07',
    group: 'timestamps',
    description: 'X-Request-Timestamp an hour ahead: 400 TIMESTAMP_INVALID',
    request: post(valid, { 'X-Request-Timestamp': '{{now+1h}}' }),
    expect: timestampInvalid,
  },
  {
    id: 'EPC-T-08',
    group: 'timestamps',
    description: 'An impossible date with the right shape: 400 TIMESTAMP_INVALID',
    request: post(valid, { 'X-Request-Timestamp': '2026-13-45T25:61:00.000Z' }),
    expect: timestampInvalid,
  },
  // Errors
  {
    id: 'EPC-F-01',
    group: 'errors',
    description: 'A body that is not JSON: 400 FORMAT_ERROR',
    request: { ...post(undefined), raw: '{"party":' },
    expect: formatError,
  },
  {
    id: 'EPC-F-02',
    group: 'errors',
    description: 'Without partyAccount: 400 FORMAT_ERROR',
    request: post({ party: { name: '{{person.name}}' }, ...agents }),
    expect: formatError,
  },
  {
    id: 'EPC-F-03',
    group: 'errors',
    description: 'An IBAN with a wrong check sum: 400 FORMAT_ERROR',
    request: post(byName('{{person.name}}', 'DE00370400440532013000')),
    expect: formatError,
  },
  {
    id: 'EPC-F-04',
    group: 'errors',
    description: 'A requestingAgent BIC that is no BIC: 400 FORMAT_ERROR',
    request: post({
      ...valid,
      requestingAgent: { financialInstitutionId: { bicfi: 'NOT-A-BIC' } },
    }),
    expect: formatError,
  },
  {
    id: 'EPC-F-05',
    group: 'errors',
    description: 'An unknown field: 400 FORMAT_ERROR',
    request: post({ ...valid, amount: '10.00' }),
    expect: formatError,
  },
  {
    id: 'EPC-F-06',
    group: 'errors',
    description: 'A party with neither name nor identification: 400 FORMAT_ERROR',
    request: post({ ...valid, party: {} }),
    expect: formatError,
  },
  {
    id: 'EPC-F-07',
    group: 'errors',
    description: 'Two remittance entries (at most one): 400 FORMAT_ERROR',
    request: post({ ...valid, unstructuredRemittanceInformation: ['INV-1', 'INV-2'] }),
    expect: formatError,
  },
  {
    id: 'EPC-F-08',
    group: 'errors',
    description: 'A remittance entry of 141 characters (Max140): 400 FORMAT_ERROR',
    request: post({ ...valid, unstructuredRemittanceInformation: ['R'.repeat(141)] }),
    expect: formatError,
  },
  {
    id: 'EPC-F-09',
    group: 'errors',
    description: 'One remittance entry of 140 characters is accepted',
    request: post({ ...valid, unstructuredRemittanceInformation: ['R'.repeat(140)] }),
    expect: { status: 200, partyNameMatch: 'MTCH' },
  },
  {
    id: 'EPC-F-10',
    group: 'errors',
    description: 'A name of 141 characters (Max140): 400 FORMAT_ERROR',
    request: post(byName('N'.repeat(141))),
    expect: formatError,
  },
  {
    id: 'EPC-F-11',
    group: 'errors',
    description: 'A body that is not application/json: 400 FORMAT_ERROR (the API has no 415)',
    request: {
      ...post(undefined, { 'Content-Type': 'text/plain' }),
      raw: 'party=someone',
    },
    expect: formatError,
  },
  {
    id: 'EPC-F-12',
    group: 'errors',
    description: 'A JSON array instead of an object: 400 FORMAT_ERROR',
    request: { ...post(undefined), raw: '[]' },
    expect: formatError,
  },
  // Character set
  {
    id: 'EPC-C-01',
    group: 'character-set',
    description: 'Latin letters with diacritics are accepted and matched',
    request: post(byName('{{person.nameWithDiacritics}}')),
    expect: { status: 200, partyNameMatch: ['MTCH', 'CMTC'] },
  },
  {
    id: 'EPC-C-02',
    group: 'character-set',
    description: 'A name in Cyrillic: 400 FORMAT_ERROR (Latin character set only)',
    request: post(byName('Эрика Мустерман')),
    expect: formatError,
  },
  {
    id: 'EPC-C-03',
    group: 'character-set',
    description: 'A name in Greek: 400 FORMAT_ERROR',
    request: post(byName('Έρικα Μούστερμαν')),
    expect: formatError,
  },
  {
    id: 'EPC-C-04',
    group: 'character-set',
    description: 'A Latin name with one CJK character: 400 FORMAT_ERROR',
    request: post(byName('Erika 山田')),
    expect: formatError,
  },
  {
    id: 'EPC-C-05',
    group: 'character-set',
    description: 'An emoji in the remittance information: 400 FORMAT_ERROR',
    request: post({ ...valid, unstructuredRemittanceInformation: ['Rent 🏠'] }),
    expect: formatError,
  },
  {
    id: 'EPC-C-06',
    group: 'character-set',
    description: 'A control character in the name: 400 FORMAT_ERROR',
    request: post(byName('Erika\u0007Mustermann')),
    expect: formatError,
  },
  // Empty fields (v1.1.1 forbids them)
  {
    id: 'EPC-E-01',
    group: 'empty-fields',
    description: 'An empty name: 400 FORMAT_ERROR',
    request: post(byName('')),
    expect: formatError,
  },
  {
    id: 'EPC-E-02',
    group: 'empty-fields',
    description: 'A name of spaces only: 400 FORMAT_ERROR',
    request: post(byName('   ')),
    expect: formatError,
  },
  {
    id: 'EPC-E-03',
    group: 'empty-fields',
    description: 'An empty identification object: 400 FORMAT_ERROR',
    request: post(byIdentification({})),
    expect: formatError,
  },
  {
    id: 'EPC-E-04',
    group: 'empty-fields',
    description: 'An empty remittance list: 400 FORMAT_ERROR',
    request: post({ ...valid, unstructuredRemittanceInformation: [] }),
    expect: formatError,
  },
  {
    id: 'EPC-E-05',
    group: 'empty-fields',
    description: 'An empty remittance entry: 400 FORMAT_ERROR',
    request: post({ ...valid, unstructuredRemittanceInformation: [''] }),
    expect: formatError,
  },
  {
    id: 'EPC-E-06',
    group: 'empty-fields',
    description: 'An empty list of other identifications: 400 FORMAT_ERROR',
    request: post(byIdentification({ others: [] })),
    expect: formatError,
  },
  {
    id: 'EPC-E-07',
    group: 'empty-fields',
    description: 'An empty partyAgent BIC: 400 FORMAT_ERROR',
    request: post({ ...valid, partyAgent: { financialInstitutionId: { bicfi: '' } } }),
    expect: formatError,
  },
  {
    id: 'EPC-E-08',
    group: 'empty-fields',
    description: 'An empty identification value: 400 FORMAT_ERROR',
    request: post(byIdentification({ others: [{ scheme: 'TXID', id: '' }] })),
    expect: formatError,
  },
  // Identification
  {
    id: 'EPC-I-01',
    group: 'identification',
    description: "The holder's LEI alone: partyIdMatch MTCH and no partyNameMatch",
    request: post(byIdentification({ lei: '{{organisation.lei}}' })),
    expect: { status: 200, partyIdMatch: 'MTCH', partyNameMatch: 'absent', matchedName: 'absent' },
  },
  {
    id: 'EPC-I-02',
    group: 'identification',
    description: 'Another LEI: partyIdMatch NMTC',
    request: post(byIdentification({ lei: '{{organisation.otherLei}}' })),
    expect: { status: 200, partyIdMatch: 'NMTC', partyNameMatch: 'absent' },
  },
  {
    id: 'EPC-I-03',
    group: 'identification',
    description: "The holder's TXID under a listed scheme: partyIdMatch MTCH",
    request: post(byIdentification({ others: [{ scheme: 'TXID', id: '{{organisation.txid}}' }] })),
    expect: { status: 200, partyIdMatch: 'MTCH' },
  },
  {
    id: 'EPC-I-04',
    group: 'identification',
    description: 'A scheme outside the EPC code list: 400 FORMAT_ERROR',
    request: post(byIdentification({ others: [{ scheme: 'VATX', id: '{{organisation.txid}}' }] })),
    expect: formatError,
  },
  {
    id: 'EPC-I-05',
    group: 'identification',
    description: 'A listed scheme in lower case: 400 FORMAT_ERROR',
    request: post(byIdentification({ others: [{ scheme: 'txid', id: '{{organisation.txid}}' }] })),
    expect: formatError,
  },
  {
    id: 'EPC-I-06',
    group: 'identification',
    description: 'A SIREN (SREN) that is not 9 digits: 400 FORMAT_ERROR',
    request: post(byIdentification({ others: [{ scheme: 'SREN', id: '12345678' }] })),
    expect: formatError,
  },
  {
    id: 'EPC-I-07',
    group: 'identification',
    description: 'A SIRET (SRET) of 14 digits the account does not hold: partyIdMatch NMTC or NOAP',
    request: post(byIdentification({ others: [{ scheme: 'SRET', id: '73282932000074' }] })),
    expect: { status: 200, partyIdMatch: ['NMTC', 'NOAP'] },
  },
  {
    id: 'EPC-I-08',
    group: 'identification',
    description: 'A LEI with a wrong format: 400 FORMAT_ERROR',
    request: post(byIdentification({ lei: 'LEI-123' })),
    expect: formatError,
  },
  {
    id: 'EPC-I-09',
    group: 'identification',
    description: 'Name and identification together: both answered',
    request: post({
      ...byIdentification({ lei: '{{organisation.lei}}' }),
      party: { name: '{{organisation.name}}', identification: { lei: '{{organisation.lei}}' } },
    }),
    expect: { status: 200, partyNameMatch: 'MTCH', partyIdMatch: 'MTCH' },
  },
  {
    id: 'EPC-I-10',
    group: 'identification',
    description: 'An identification of 256 characters (Max256Text) is answered, not refused',
    request: post(byIdentification({ others: [{ scheme: 'CUST', id: 'C'.repeat(256) }] })),
    expect: { status: 200, partyIdMatch: ['NMTC', 'NOAP'] },
  },
  {
    id: 'EPC-I-11',
    group: 'identification',
    description: 'An identification of 257 characters: 400 FORMAT_ERROR',
    request: post(byIdentification({ others: [{ scheme: 'CUST', id: 'C'.repeat(257) }] })),
    expect: formatError,
  },
  // Outcomes
  {
    id: 'EPC-O-01',
    group: 'outcomes',
    description: 'A close name: CMTC with matchedName',
    request: post(byName('{{organisation.closeName}}', '{{organisation.iban}}')),
    expect: { status: 200, partyNameMatch: 'CMTC', matchedName: 'present' },
  },
  {
    id: 'EPC-O-02',
    group: 'outcomes',
    description: 'Another name: NMTC without matchedName',
    request: post(byName('{{person.otherName}}')),
    expect: { status: 200, partyNameMatch: 'NMTC', matchedName: 'absent' },
  },
  {
    id: 'EPC-O-03',
    group: 'outcomes',
    description: 'An IBAN the responder does not hold: 200 NOAP (matching not possible)',
    request: post(byName('{{person.name}}', '{{unknownIban}}')),
    expect: { status: 200, partyNameMatch: 'NOAP', matchedName: 'absent' },
  },
  {
    id: 'EPC-O-04',
    group: 'outcomes',
    description: 'A partyAgent BIC that is not the responder: 200 NOAP',
    request: post({
      ...valid,
      partyAgent: { financialInstitutionId: { bicfi: '{{foreignBic}}' } },
    }),
    expect: { status: 200, partyNameMatch: 'NOAP', matchedName: 'absent' },
  },
  {
    id: 'EPC-O-05',
    group: 'outcomes',
    description: 'A foreign partyAgent asked by identification: 200 partyIdMatch NOAP',
    request: post({
      ...byIdentification({ lei: '{{organisation.lei}}' }),
      partyAgent: { financialInstitutionId: { bicfi: '{{foreignBic}}' } },
    }),
    expect: { status: 200, partyIdMatch: 'NOAP', partyNameMatch: 'absent' },
  },
  {
    id: 'EPC-O-06',
    group: 'outcomes',
    description: "The responder's 8-character BIC as partyAgent is the responder",
    request: post({
      ...valid,
      partyAgent: { financialInstitutionId: { bicfi: '{{responderBic8}}' } },
    }),
    expect: { status: 200, partyNameMatch: 'MTCH' },
  },
  // Directory (EDS adherence)
  {
    id: 'EPC-D-01',
    group: 'directory',
    description: 'A trusted certificate whose holder is in no directory: 401 CLIENT_INVALID',
    credential: 'non-participant',
    request: post(valid),
    expect: { status: 401, errorCode: 'CLIENT_INVALID' },
  },
  {
    id: 'EPC-D-02',
    group: 'directory',
    description: 'A requestingAgent BIC of another participant: 401 CLIENT_INCONSISTENT',
    request: post({
      ...valid,
      requestingAgent: { financialInstitutionId: { bicfi: '{{otherParticipantBic}}' } },
    }),
    expect: { status: 401, errorCode: 'CLIENT_INCONSISTENT' },
  },
  {
    id: 'EPC-D-03',
    group: 'directory',
    description: 'No client certificate: 401 CLIENT_INVALID',
    credential: 'none',
    request: post(valid),
    expect: { status: 401, errorCode: 'CLIENT_INVALID' },
  },
  {
    id: 'EPC-D-04',
    group: 'directory',
    description: 'A requestingAgent BIC in no directory: 401 CLIENT_INCONSISTENT',
    request: post({
      ...valid,
      requestingAgent: { financialInstitutionId: { bicfi: 'ZZZZDEFFXXX' } },
    }),
    expect: { status: 401, errorCode: 'CLIENT_INCONSISTENT' },
  },
];
