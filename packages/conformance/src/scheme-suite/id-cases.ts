import type { ConformanceCase } from '../types.js';
import { formatError, numbered, post, reused, verification } from './case-builders.js';

const byOthers = (others: unknown, iban = '{{organisation.iban}}') =>
  post(verification({ identification: { others } }, iban));
const idOnly = (partyIdMatch: 'MTCH' | 'NMTC' | 'NOAP') =>
  ({ status: 200, partyIdMatch, partyNameMatch: 'absent', matchedName: 'absent' }) as const;
const txid = [{ scheme: 'TXID', id: '{{organisation.txid}}' }];
const company = '{{accounts.company.iban}}';

/** Other identifications: the EPC code list, the formats it publishes, lists and their limits. */
export const ID_CASES: readonly ConformanceCase[] = numbered('I', 'id', [
  reused('EPC-I-03', "The holder's TXID: partyIdMatch MTCH"),
  {
    description: 'A TXID the holder does not have: partyIdMatch NMTC',
    request: byOthers([{ scheme: 'TXID', id: 'DE999999999' }]),
    expect: idOnly('NMTC'),
  },
  {
    description: "The second company's SIREN (SREN): partyIdMatch MTCH",
    request: byOthers([{ scheme: 'SREN', id: '{{accounts.company.siren}}' }], company),
    expect: idOnly('MTCH'),
  },
  {
    description: "The second company's customer number (CUST): partyIdMatch MTCH",
    request: byOthers([{ scheme: 'CUST', id: '{{accounts.company.customerId}}' }], company),
    expect: idOnly('MTCH'),
  },
  {
    description: "Two identifications, both the holder's (SREN and CUST): partyIdMatch MTCH",
    request: byOthers(
      [
        { scheme: 'CUST', id: '{{accounts.company.customerId}}' },
        { scheme: 'SREN', id: '{{accounts.company.siren}}' },
      ],
      company,
    ),
    expect: idOnly('MTCH'),
  },
  reused('EPC-I-04', 'A scheme outside the EPC code list: FORMAT_ERROR'),
  reused('EPC-I-05', 'A listed scheme in small letters: FORMAT_ERROR'),
  reused('EPC-I-06', 'A SIREN that is not 9 digits: FORMAT_ERROR'),
  {
    description: 'A SIREN with a letter: FORMAT_ERROR',
    request: byOthers([{ scheme: 'SREN', id: '73282932A' }]),
    expect: formatError,
  },
  reused('EPC-I-07', 'A SIRET of 14 digits the account does not hold: NMTC or NOAP'),
  {
    description: 'A SIRET of 13 digits: FORMAT_ERROR',
    request: byOthers([{ scheme: 'SRET', id: '7328293200007' }]),
    expect: formatError,
  },
  reused('EPC-I-10', 'An identification of 256 characters is answered'),
  reused('EPC-I-11', 'An identification of 257 characters: FORMAT_ERROR'),
  reused('EPC-E-08', 'An empty identification value: FORMAT_ERROR'),
  {
    description: 'An identification value of spaces only: FORMAT_ERROR',
    request: byOthers([{ scheme: 'TXID', id: '   ' }]),
    expect: formatError,
  },
  reused('EPC-E-06', 'An empty list of other identifications: FORMAT_ERROR'),
  reused('EPC-E-03', 'An empty identification object: FORMAT_ERROR'),
  {
    description: 'Eleven identifications (at most ten): FORMAT_ERROR',
    request: byOthers(
      Array.from({ length: 11 }, (_, index) => ({ scheme: 'CUST', id: `C-${index}` })),
    ),
    expect: formatError,
  },
  {
    description: 'An identification without scheme: FORMAT_ERROR',
    request: byOthers([{ id: '{{organisation.txid}}' }]),
    expect: formatError,
  },
  {
    description: 'An identification without id: FORMAT_ERROR',
    request: byOthers([{ scheme: 'TXID' }]),
    expect: formatError,
  },
  {
    description: 'An identification with an unknown field: FORMAT_ERROR',
    request: byOthers([{ scheme: 'TXID', id: '{{organisation.txid}}', issuer: 'DE' }]),
    expect: formatError,
  },
  {
    description: 'An identification in Greek letters: FORMAT_ERROR',
    request: byOthers([{ scheme: 'CUST', id: 'ΑΒΓ-42' }]),
    expect: formatError,
  },
  {
    description: 'A TXID at an IBAN the responder does not hold: NOAP',
    request: byOthers(txid, '{{unknownIban}}'),
    expect: idOnly('NOAP'),
  },
  {
    description: 'A TXID at a closed account: NOAP',
    request: byOthers(txid, '{{accounts.closed.iban}}'),
    expect: idOnly('NOAP'),
  },
  {
    description: 'A TXID asked of a person account that holds none: NMTC or NOAP',
    request: byOthers(txid, '{{person.iban}}'),
    expect: { status: 200, partyIdMatch: ['NMTC', 'NOAP'], partyNameMatch: 'absent' },
  },
  {
    description: "The holder's TXID with the holder's name: both MTCH",
    request: post(
      verification(
        { name: '{{organisation.name}}', identification: { others: txid } },
        '{{organisation.iban}}',
      ),
    ),
    expect: { status: 200, partyIdMatch: 'MTCH', partyNameMatch: 'MTCH', matchedName: 'absent' },
  },
]);
