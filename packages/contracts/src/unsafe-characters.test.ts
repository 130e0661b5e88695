import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BatchEntry,
  buildOpenApiDocument,
  EpcVerifyRequest,
  HolderName,
  OneLineText,
  SchemeVerifyRequest,
} from './index.js';
import { hasUnsafeCharacter, UNSAFE_CHARACTER_CLASS } from './unsafe-characters.js';

/** Characters that spoof a name on a page or in a CSV file (issue 39). */
const SPOOFING: [string, string][] = [
  ['LINE SEPARATOR', '\u2028'],
  ['PARAGRAPH SEPARATOR', '\u2029'],
  ['LEFT-TO-RIGHT EMBEDDING', '\u202A'],
  ['RIGHT-TO-LEFT EMBEDDING', '\u202B'],
  ['POP DIRECTIONAL FORMATTING', '\u202C'],
  ['LEFT-TO-RIGHT OVERRIDE', '\u202D'],
  ['RIGHT-TO-LEFT OVERRIDE', '\u202E'],
  ['LEFT-TO-RIGHT ISOLATE', '\u2066'],
  ['RIGHT-TO-LEFT ISOLATE', '\u2067'],
  ['FIRST STRONG ISOLATE', '\u2068'],
  ['POP DIRECTIONAL ISOLATE', '\u2069'],
  ['LEFT-TO-RIGHT MARK', '\u200E'],
  ['RIGHT-TO-LEFT MARK', '\u200F'],
  ['ARABIC LETTER MARK', '\u061C'],
  ['ZERO WIDTH SPACE', '\u200B'],
  ['WORD JOINER', '\u2060'],
  ['FUNCTION APPLICATION', '\u2061'],
  ['INVISIBLE TIMES', '\u2062'],
  ['INVISIBLE SEPARATOR', '\u2063'],
  ['INVISIBLE PLUS', '\u2064'],
  ['ZERO WIDTH NO-BREAK SPACE (BOM)', '\uFEFF'],
  ['MONGOLIAN VOWEL SEPARATOR', '\u180E'],
  ['HANGUL CHOSEONG FILLER', '\u115F'],
  ['HANGUL JUNGSEONG FILLER', '\u1160'],
  ['HANGUL FILLER', '\u3164'],
  ['HALFWIDTH HANGUL FILLER', '\uFFA0'],
  ['SOFT HYPHEN', '\u00AD'],
  ['COMBINING GRAPHEME JOINER', '\u034F'],
  ['BRAILLE PATTERN BLANK', '\u2800'],
  ['ZERO WIDTH JOINER between Latin letters', '\u200D'],
  ['ZERO WIDTH NON-JOINER between Latin letters', '\u200C'],
  ['TAG LATIN CAPITAL LETTER A', '\u{E0041}'],
  ['LANGUAGE TAG', '\u{E0001}'],
];

/** Names in every script the service takes, as their holders write them. */
const LEGITIMATE = [
  'Erika Mustermann',
  'Łukasz Żółć-Ærø',
  'Jürgen Müller-Lüdenscheidt',
  'Nguyễn Văn Đức',
  'Siobhán O’Brien',
  'Ελένη Παπαδοπούλου',
  'Екатерина Иванова',
  'محمد رضا',
  'می\u200Cخواهم رضایی', // Persian: a non-joiner keeps the letters apart
  'زهرا\u200Cسادات',
  'क्\u200Dष राज', // Devanagari: a joiner asks for the half form
  'र्\u200Dय',
  'শ্\u200Cরী', // Bengali
  'അര്\u200Dജുന്\u200Dന', // Malayalam (chillu as joiner sequences, inside the name)
  'ශ්\u200Dරී', // Sinhala
  'ܐܒܪܗܡ\u200Cܐ', // Syriac
  '山田太郎',
  '葛\u{E0100}飾', // an ideographic variation sequence
  '김민준',
  'דוד כהן',
  'Արամ Խաչատրյան',
  'สมชาย ใจดี',
  '𠮷野家 🙂\uFE0F',
];

describe('unsafe characters', () => {
  it('are refused wherever they stand in a name', () => {
    for (const [what, character] of SPOOFING)
      for (const name of [`Erika${character}Mustermann`, `${character}Erika`, `Erika${character}`])
        assert.equal(hasUnsafeCharacter(name), true, `${what} in ${JSON.stringify(name)}`);
  });

  it('U+FFFD and unpaired surrogates stay refused; a paired one is a character', () => {
    for (const value of ['Erika\uFFFD', 'x\uD800y', '\uDC00x', 'x\uD83D', '\uDE00\uD83D'])
      assert.equal(hasUnsafeCharacter(value), true, JSON.stringify(value));
    assert.equal(hasUnsafeCharacter('\uD83D\uDE00'), false);
  });

  it('legitimate names in every script pass', () => {
    for (const name of LEGITIMATE) assert.equal(hasUnsafeCharacter(name), false, name);
  });

  it('joiners pass only between two letters of one script that uses them', () => {
    for (const [value, refused] of [
      ['\u200Cمی', true], // at the start
      ['می\u200C', true], // at the end
      ['می \u200Cخ', true], // after a space
      ['می\u200C\u200Cخ', true], // doubled
      ['क्\u200D\u200Dष', true],
      ['می\u200Cx', true], // beside Latin
      ['x\u200Dक', true],
      ['می\u200Cक', true], // between two scripts
      ['می\u200C1', true], // beside a digit
      ['山\u200D田', true], // a script that has no use for them
      ['김\u200C민', true],
      ['می\u200Cخ', false],
      ['ߒ\u200Dߞ', false], // N'Ko
    ] as const)
      assert.equal(hasUnsafeCharacter(value), refused, JSON.stringify(value));
  });

  it('the class the document states is what the check refuses, for every character of the BMP', () => {
    const stated = new RegExp(`[${UNSAFE_CHARACTER_CLASS}]`);
    for (let code = 0; code <= 0xffff; code++) {
      if ((code >= 0xd800 && code <= 0xdfff) || code === 0x200c || code === 0x200d) continue;
      const character = String.fromCharCode(code);
      assert.equal(
        stated.test(character),
        hasUnsafeCharacter(`a${character}a`),
        `U+${code.toString(16).toUpperCase().padStart(4, '0')}`,
      );
    }
  });
});

describe('text contracts refuse the same characters, as INVALID_CHARACTERS', () => {
  const firstIssue = (result: { success: boolean; error?: { issues: unknown[] } }) =>
    (result.error?.issues[0] as { message?: string; path?: unknown[] } | undefined) ?? {};

  it('in a holder name, a one-line text and a batch entry', () => {
    for (const [what, character] of SPOOFING) {
      for (const schema of [HolderName, OneLineText(140)])
        assert.equal(
          firstIssue(schema.safeParse(`Erika${character}`)).message,
          'INVALID_CHARACTERS',
          what,
        );
      const entry = BatchEntry.safeParse({
        id: `e${character}1`,
        iban: 'DE89370400440532013000',
        name: 'Erika',
      });
      assert.deepEqual(firstIssue(entry).path, ['id'], what);
    }
    const loneSurrogate = BatchEntry.safeParse({
      id: 'e1',
      iban: 'DE89370400440532013000',
      name: 'Erika\uD800',
    });
    assert.equal(firstIssue(loneSurrogate).message, 'INVALID_CHARACTERS');
    for (const name of LEGITIMATE) assert.equal(HolderName.safeParse(name).success, true, name);
  });

  it('in the scheme and EPC requests', () => {
    const request = (name: string) => ({
      party: { name },
      partyAccount: { iban: 'DE89370400440532013000' },
      partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } },
      requestingAgent: { financialInstitutionId: { bicfi: 'DEUTDEFFXXX' } },
    });
    for (const [what, character] of SPOOFING)
      for (const schema of [SchemeVerifyRequest, EpcVerifyRequest]) {
        const issue = firstIssue(schema.safeParse(request(`Erika${character}`)));
        assert.equal(issue.message, 'INVALID_CHARACTERS', what);
        assert.deepEqual(issue.path, ['party', 'name'], what);
      }
  });

  it('and the document states them in the name pattern (but the joiners, which need context)', () => {
    const schemas = buildOpenApiDocument('test').components?.schemas as Record<string, any>;
    const scheme = new RegExp(schemas.SchemeVerifyRequest.properties.party.properties.name.pattern);
    const epc = new RegExp(schemas.EpcVerifyRequest.properties.party.properties.name.pattern);
    for (const [what, character] of SPOOFING) {
      if (character.length > 1 || character === '\u200C' || character === '\u200D') continue;
      assert.equal(scheme.test(`Erika${character}`), false, what);
      assert.equal(epc.test(`Erika${character}`), false, what);
    }
    for (const name of LEGITIMATE) assert.equal(scheme.test(name), true, name);
    assert.equal(epc.test('Łukasz Żółć-Ærø'), true);
  });
});
