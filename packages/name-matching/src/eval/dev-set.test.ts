import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createNameMatcher } from '../matcher.js';
import { loadLabelledCases } from './dataset.js';
import { evaluate } from './metrics.js';

const cases = loadLabelledCases();

describe('VoP development set', () => {
  it('given the repository dev set, then it has the size, mix and coverage the issue asks for', () => {
    assert.ok(cases.length >= 400, `${cases.length} cases`);
    const negatives = cases.filter((c) => c.expected === 'NMTC').length;
    assert.ok(negatives * 3 >= cases.length, `${negatives} NMTC of ${cases.length}`);
    const languages = new Set(cases.map((c) => c.language).filter((l) => l !== 'other'));
    assert.ok(languages.size >= 8, `${languages.size} languages`);
    assert.ok(
      cases.some((c) => c.holder.holderType === 'person') &&
        cases.some((c) => c.holder.holderType === 'organisation'),
    );
    const categories = new Set(cases.map((c) => c.category));
    for (const category of [
      'cosmetic_case',
      'cosmetic_accents',
      'cosmetic_umlaut',
      'cosmetic_punctuation',
      'title',
      'legal_form_written_out',
      'word_order',
      'typo',
      'nickname',
      'initials',
      'middle_name_missing',
      'legal_form_missing',
      'different_person',
      'different_company',
      'legal_form_different',
      'surname_only',
      'initials_only',
      'person_vs_company',
      'joint_account',
      'trading_name',
      'transliteration',
      'same_surname',
      'sister_company',
      'shared_words',
    ]) {
      assert.ok(categories.has(category), `category ${category} is covered`);
    }
  });

  it('given the engine with default thresholds, when run on the dev set, then false matches ≤ 1 % and accuracy ≥ 95 %', () => {
    const report = evaluate(createNameMatcher(), cases);
    assert.ok(report.falseMatchRate <= 0.01, `false-match rate ${report.falseMatchRate}`);
    assert.ok(report.accuracy >= 0.95, `accuracy ${report.accuracy}`);
  });
});
