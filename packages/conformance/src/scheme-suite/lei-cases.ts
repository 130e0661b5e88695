import type { ConformanceCase } from '../types.js';
import { formatError, numbered, post, reused, verification } from './case-builders.js';

const byIdentification = (identification: unknown, iban = '{{organisation.iban}}') =>
  post(verification({ identification }, iban));
const byLei = (lei: unknown, iban?: string) => byIdentification({ lei }, iban);
const idOnly = (partyIdMatch: 'MTCH' | 'NMTC' | 'NOAP') =>
  ({ status: 200, partyIdMatch, partyNameMatch: 'absent', matchedName: 'absent' }) as const;
const company = '{{accounts.company.iban}}';

/** Legal Entity Identifiers: the holder's, another, their form, with a name and other ids. */
export const LEI_CASES: readonly ConformanceCase[] = numbered('L', 'lei', [
  reused('EPC-I-01', "The holder's LEI alone: partyIdMatch MTCH, no partyNameMatch"),
  reused('EPC-I-02', 'Another valid LEI: partyIdMatch NMTC'),
  {
    description: "The holder's LEI in small letters: partyIdMatch MTCH",
    request: byLei('{{organisation.leiLower}}'),
    expect: idOnly('MTCH'),
  },
  {
    description: "The second company's LEI at its account: partyIdMatch MTCH",
    request: byLei('{{accounts.company.lei}}', company),
    expect: idOnly('MTCH'),
  },
  {
    description: "The first company's LEI at the second's account: partyIdMatch NMTC",
    request: byLei('{{organisation.lei}}', company),
    expect: idOnly('NMTC'),
  },
  {
    description: 'A LEI asked of a person account that holds none: NMTC or NOAP',
    request: byLei('{{organisation.lei}}', '{{person.iban}}'),
    expect: { status: 200, partyIdMatch: ['NMTC', 'NOAP'], partyNameMatch: 'absent' },
  },
  {
    description: 'A LEI at an IBAN the responder does not hold: NOAP',
    request: byLei('{{organisation.lei}}', '{{unknownIban}}'),
    expect: idOnly('NOAP'),
  },
  {
    description: 'A LEI at a closed account: NOAP',
    request: byLei('{{organisation.lei}}', '{{accounts.closed.iban}}'),
    expect: idOnly('NOAP'),
  },
  reused('EPC-I-08', 'A LEI of the wrong length: FORMAT_ERROR'),
  {
    description: 'A LEI of 19 characters: FORMAT_ERROR',
    request: byLei('5299000J2N45DDNE4Y2'),
    expect: formatError,
  },
  {
    description: 'A LEI of 21 characters: FORMAT_ERROR',
    request: byLei('5299000J2N45DDNE4Y281'),
    expect: formatError,
  },
  {
    description: 'A LEI whose last two characters are letters: FORMAT_ERROR',
    request: byLei('5299000J2N45DDNE4YAB'),
    expect: formatError,
  },
  {
    description: 'A LEI with a hyphen: FORMAT_ERROR',
    request: byLei('5299000J2N-5DDNE4Y28'),
    expect: formatError,
  },
  {
    description: 'An empty LEI: FORMAT_ERROR',
    request: byLei(''),
    expect: formatError,
  },
  {
    description: 'A LEI that is a number: FORMAT_ERROR',
    request: byLei(529900012345),
    expect: formatError,
  },
  {
    description: 'A LEI that is null: FORMAT_ERROR',
    request: byLei(null),
    expect: formatError,
  },
  {
    description: 'A LEI with a Cyrillic letter: FORMAT_ERROR',
    request: byLei('5299000J2N45DDNЕ4Y28'),
    expect: formatError,
  },
  {
    description: 'An unknown field beside the LEI: FORMAT_ERROR',
    request: byIdentification({ lei: '{{organisation.lei}}', bic: 'COBADEFFXXX' }),
    expect: formatError,
  },
  {
    description: "The holder's LEI and name: partyIdMatch MTCH and partyNameMatch MTCH",
    request: post(
      verification(
        { name: '{{organisation.name}}', identification: { lei: '{{organisation.lei}}' } },
        '{{organisation.iban}}',
      ),
    ),
    expect: { status: 200, partyIdMatch: 'MTCH', partyNameMatch: 'MTCH', matchedName: 'absent' },
  },
  {
    description: "The holder's LEI with another name: partyIdMatch MTCH, partyNameMatch NMTC",
    request: post(
      verification(
        { name: 'Johann Weber', identification: { lei: '{{organisation.lei}}' } },
        '{{organisation.iban}}',
      ),
    ),
    expect: { status: 200, partyIdMatch: 'MTCH', partyNameMatch: 'NMTC', matchedName: 'absent' },
  },
  {
    description: "The holder's LEI with a close name: MTCH and CMTC with matchedName",
    request: post(
      verification(
        { name: '{{organisation.closeName}}', identification: { lei: '{{organisation.lei}}' } },
        '{{organisation.iban}}',
      ),
    ),
    expect: { status: 200, partyIdMatch: 'MTCH', partyNameMatch: 'CMTC', matchedName: 'present' },
  },
  {
    description: 'Another LEI with the right name: partyIdMatch NMTC, partyNameMatch MTCH',
    request: post(
      verification(
        { name: '{{organisation.name}}', identification: { lei: '{{organisation.otherLei}}' } },
        '{{organisation.iban}}',
      ),
    ),
    expect: { status: 200, partyIdMatch: 'NMTC', partyNameMatch: 'MTCH' },
  },
  {
    description: "The holder's LEI and TXID together: partyIdMatch MTCH",
    request: byIdentification({
      lei: '{{organisation.lei}}',
      others: [{ scheme: 'TXID', id: '{{organisation.txid}}' }],
    }),
    expect: idOnly('MTCH'),
  },
  {
    description: 'Another LEI with a TXID nobody holds: partyIdMatch NMTC',
    request: byIdentification({
      lei: '{{organisation.otherLei}}',
      others: [{ scheme: 'TXID', id: 'XX000000000' }],
    }),
    expect: idOnly('NMTC'),
  },
  {
    description: "The holder's LEI with one remittance entry: partyIdMatch MTCH",
    request: post(
      verification({ identification: { lei: '{{organisation.lei}}' } }, '{{organisation.iban}}', {
        unstructuredRemittanceInformation: ['Invoice 2025-139'],
      }),
    ),
    expect: idOnly('MTCH'),
  },
  {
    description: 'A LEI request without X-Request-Timestamp: TIMESTAMP_INVALID',
    request: post(
      verification({ identification: { lei: '{{organisation.lei}}' } }, '{{organisation.iban}}'),
      { 'X-Request-Timestamp': undefined },
    ),
    expect: { status: 400, errorCode: 'TIMESTAMP_INVALID' },
  },
  {
    description: 'A LEI request without partyAccount: FORMAT_ERROR',
    request: post({
      party: { identification: { lei: '{{organisation.lei}}' } },
      partyAgent: { financialInstitutionId: { bicfi: '{{responderBic}}' } },
      requestingAgent: { financialInstitutionId: { bicfi: '{{requesterBic}}' } },
    }),
    expect: formatError,
  },
  {
    description: 'A LEI request with a timestamp an hour old: TIMESTAMP_INVALID',
    request: post(
      verification({ identification: { lei: '{{organisation.lei}}' } }, '{{organisation.iban}}'),
      { 'X-Request-Timestamp': '{{now-1h}}' },
    ),
    expect: { status: 400, errorCode: 'TIMESTAMP_INVALID' },
  },
]);
