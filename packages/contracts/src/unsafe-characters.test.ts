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
import { NAMES_IN_EVERY_SCRIPT, SPOOFING_CHARACTERS } from '@vop/testing';
import { hasUnsafeCharacter, UNSAFE_CHARACTER_CLASS } from './unsafe-characters.js';

/** Names in every script the service takes, as their holders write them; more than the edge's test sends. */
const LEGITIMATE = [
  ...NAMES_IN_EVERY_SCRIPT,
  'Erika Mustermann',
  'Jürgen Müller-Lüdenscheidt',
  'زهرا\u200Cسادات',
  'र्\u200Dय',
  'শ্\u200Cরী', // Bengali
  'അര്\u200Dജുന്\u200Dന', // Malayalam (chillu as joiner sequences, inside the name)
  'ශ්\u200Dරී', // Sinhala
  'ܐܒܪܗܡ\u200Cܐ', // Syriac
  '葛\u{E0100}飾', // an ideographic variation sequence
  'Արամ Խաչատրյան',
  'สมชาย ใจดี',
  '𠮷野家 🙂\uFE0F',
];

describe('unsafe characters', () => {
  it('are refused wherever they stand in a name', () => {
    for (const [what, character] of SPOOFING_CHARACTERS)
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
    for (const [what, character] of SPOOFING_CHARACTERS) {
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
    for (const [what, character] of SPOOFING_CHARACTERS)
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
    for (const [what, character] of SPOOFING_CHARACTERS) {
      if (character.length > 1 || character === '\u200C' || character === '\u200D') continue;
      assert.equal(scheme.test(`Erika${character}`), false, what);
      assert.equal(epc.test(`Erika${character}`), false, what);
    }
    for (const name of LEGITIMATE) assert.equal(scheme.test(name), true, name);
    assert.equal(epc.test('Łukasz Żółć-Ærø'), true);
  });
});
