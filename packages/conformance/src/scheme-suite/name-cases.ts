import type { ConformanceCase } from '../types.js';
import { formatError, numbered, post, reused, verification } from './case-builders.js';

const byName = (name: unknown, iban?: string, extra?: Record<string, unknown>) =>
  post(verification({ name }, iban, extra));
const match = { status: 200, partyNameMatch: 'MTCH', matchedName: 'absent' } as const;
const close = { status: 200, partyNameMatch: 'CMTC', matchedName: 'present' } as const;
const noMatch = { status: 200, partyNameMatch: 'NMTC', matchedName: 'absent' } as const;
const notApplicable = { status: 200, partyNameMatch: 'NOAP', matchedName: 'absent' } as const;
const umlauts = '{{accounts.umlauts.iban}}';
const joint = '{{accounts.joint.iban}}';
const company = '{{accounts.company.iban}}';

/** Name verification: outcomes, normalisation, the character set and the name field's form. */
export const NAME_CASES: readonly ConformanceCase[] = numbered('N', 'name', [
  reused('EPC-H-01', 'The exact name: MTCH without matchedName'),
  { description: 'The name in capitals: MTCH', request: byName('ERIKA MUSTERMANN'), expect: match },
  {
    description: 'The name in small letters: MTCH',
    request: byName('erika mustermann'),
    expect: match,
  },
  {
    description: 'Two spaces between the words: MTCH',
    request: byName('Erika  Mustermann'),
    expect: match,
  },
  {
    description: 'Spaces before and after the name: MTCH',
    request: byName('  Erika Mustermann  '),
    expect: match,
  },
  {
    description: 'Umlaut and sharp s written without them (Jurgen Gross): MTCH',
    request: byName('Jurgen Gross', umlauts),
    expect: match,
  },
  {
    description: 'Umlaut and sharp s transliterated (Juergen Gross): MTCH',
    request: byName('Juergen Gross', umlauts),
    expect: match,
  },
  {
    description: 'The name as the account holds it, umlaut and sharp s included: MTCH',
    request: byName('{{accounts.umlauts.name}}', umlauts),
    expect: match,
  },
  reused('EPC-C-01', 'Diacritics the account does not hold (Érika): MTCH or CMTC'),
  {
    description: 'One letter wrong (Erika Mustermenn): CMTC with matchedName',
    request: byName('Erika Mustermenn'),
    expect: close,
  },
  {
    description: 'One letter missing (Erika Musterman): CMTC with matchedName',
    request: byName('Erika Musterman'),
    expect: close,
  },
  {
    description: 'Surname first (Mustermann Erika): CMTC with matchedName',
    request: byName('Mustermann Erika'),
    expect: close,
  },
  reused('EPC-O-02', 'Another person: NMTC without matchedName'),
  {
    description: 'A short form of the first name (Bob Smith for Robert Smith): CMTC',
    request: byName('Bob Smith', joint),
    expect: close,
  },
  {
    description: 'The joint holder named on the account (Jane Smith): MTCH',
    request: byName('{{accounts.joint.alternateName}}', joint),
    expect: match,
  },
  {
    description: 'Someone unrelated on the joint account: NMTC',
    request: byName('Johann Weber', joint),
    expect: noMatch,
  },
  {
    description: "The organisation's exact name: MTCH",
    request: byName('{{organisation.name}}', '{{organisation.iban}}'),
    expect: match,
  },
  {
    description: "The organisation's name in capitals: MTCH",
    request: byName('BÄCKEREI SCHMIDT GMBH', '{{organisation.iban}}'),
    expect: match,
  },
  reused('EPC-O-01', 'The organisation without its legal form: CMTC with matchedName'),
  {
    description: 'The organisation with another legal form (AG for GmbH, another entity): NMTC',
    request: byName('Bäckerei Schmidt AG', '{{organisation.iban}}'),
    expect: noMatch,
  },
  {
    description: 'Another company on the organisation account: NMTC',
    request: byName('{{accounts.company.name}}', '{{organisation.iban}}'),
    expect: noMatch,
  },
  {
    description: 'A second organisation by its exact name: MTCH',
    request: byName('{{accounts.company.name}}', company),
    expect: match,
  },
  {
    description: 'A closed account: NOAP (matching not possible)',
    request: byName('{{accounts.closed.name}}', '{{accounts.closed.iban}}'),
    expect: notApplicable,
  },
  reused('EPC-O-03', 'An IBAN the responder does not hold: NOAP'),
  {
    description: 'The IBAN in print form with spaces is the same account: MTCH',
    request: byName('{{person.name}}', '{{person.ibanPrint}}'),
    expect: match,
  },
  {
    description: 'A name of 140 characters (Max140) is answered: NMTC',
    request: byName(`Erika ${'M'.repeat(134)}`),
    expect: noMatch,
  },
  {
    description: 'The first name as an initial (E. Mustermann): CMTC',
    request: byName('E. Mustermann'),
    expect: close,
  },
  reused('EPC-F-10', 'A name of 141 characters: FORMAT_ERROR'),
  reused('EPC-E-01', 'An empty name: FORMAT_ERROR'),
  reused('EPC-E-02', 'A name of spaces only: FORMAT_ERROR'),
  reused('EPC-C-02', 'A name in Cyrillic: FORMAT_ERROR'),
  reused('EPC-C-03', 'A name in Greek: FORMAT_ERROR'),
  reused('EPC-C-04', 'A Latin name with one CJK character: FORMAT_ERROR'),
  reused('EPC-C-06', 'A control character in the name: FORMAT_ERROR'),
  {
    description: 'A name that is a number, not a string: FORMAT_ERROR',
    request: byName(12345),
    expect: formatError,
  },
  {
    description: 'A name that is null: FORMAT_ERROR',
    request: byName(null),
    expect: formatError,
  },
  {
    description: 'An unknown field beside the name in party: FORMAT_ERROR',
    request: post(verification({ name: '{{person.name}}', nickname: 'Eri' })),
    expect: formatError,
  },
  reused('EPC-F-06', 'A party with neither name nor identification: FORMAT_ERROR'),
  {
    description: 'Digits only as a name: NMTC',
    request: byName('1234567'),
    expect: noMatch,
  },
  {
    description: 'One letter as a name: NMTC',
    request: byName('E'),
    expect: noMatch,
  },
  reused('EPC-F-09', 'The name with one remittance entry of 140 characters: MTCH'),
  reused('EPC-F-07', 'The name with two remittance entries: FORMAT_ERROR'),
  reused('EPC-C-05', 'An emoji in the remittance information: FORMAT_ERROR'),
  {
    description: 'The name asked of the responder by its 8-character BIC: MTCH',
    request: post({
      ...verification({ name: '{{person.name}}' }),
      partyAgent: { financialInstitutionId: { bicfi: '{{responderBic8}}' } },
    }),
    expect: match,
  },
  reused('EPC-H-02', 'A name request without X-Request-ID: FORMAT_ERROR'),
]);
