import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createNameMatcher } from '../matcher.js';
import { HARD_EDGES_URL, loadLabelledCases } from './dataset.js';
import { evaluate } from './metrics.js';

const cases = loadLabelledCases(HARD_EDGES_URL);
const KINDS = [
  'truncated',
  'sole_trader',
  'business_variant',
  'transliteration_standard',
  'name_order_marker',
  'legal_form_spelling',
  'noise',
  'hard_negative',
];

describe('hard-edges development cases', () => {
  it('given the hand-written set, then every kind of the issue has cases, negatives among them, and a source', () => {
    for (const kind of KINDS) {
      const ofKind = cases.filter((c) => c.category === kind);
      assert.ok(ofKind.length >= 8, `${kind}: ${ofKind.length} cases`);
    }
    assert.ok(
      cases.every((c) => KINDS.includes(c.category)),
      'only the kinds of the issue',
    );
    assert.ok(
      cases.every((c) => c.source.startsWith('own construction')),
      'every case says where from',
    );
    const negatives = cases.filter((c) => c.expected === 'NMTC').length;
    assert.ok(negatives * 4 >= cases.length, `${negatives} NMTC of ${cases.length}`);
  });

  it('given the engine with default thresholds, then no false match and at least 95 % right in every kind', () => {
    const report = evaluate(createNameMatcher(), cases);
    const falseMatches = report.errors.filter(
      (e) => e.labelled.expected === 'NMTC' && e.actual !== 'NMTC',
    );
    assert.deepEqual(
      falseMatches.map((e) => `${e.labelled.typedName} | ${e.labelled.holder.names.join(' | ')}`),
      [],
    );
    for (const figures of report.byCategory) {
      assert.ok(
        figures.correct >= 0.95 * figures.cases,
        `${figures.category}: ${figures.correct} of ${figures.cases}`,
      );
    }
  });
});
