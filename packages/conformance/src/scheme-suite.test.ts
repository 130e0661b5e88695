import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { complianceReport, compliancePercent, junitXml } from './compliance-report.js';
import { placeholderFiller } from './placeholders.js';
import { loadReferenceData, REFERENCE_DATA_VERSIONS } from './reference-data.js';
import { SCHEME_SUITE_CASES } from './scheme-suite/index.js';
import type { CaseResult } from './types.js';

describe('the scheme139-25 suite', () => {
  it('holds 131 cases: name 45, BIC 32, LEI 28, ID 26, with unique ids', () => {
    const byGroup: Record<string, number> = {};
    for (const each of SCHEME_SUITE_CASES) byGroup[each.group] = (byGroup[each.group] ?? 0) + 1;
    assert.deepEqual(byGroup, { name: 45, bic: 32, lei: 28, id: 26 });
    const ids = SCHEME_SUITE_CASES.map((each) => each.id);
    assert.equal(new Set(ids).size, 131);
  });

  it('asks only about the accounts of the shipped reference data set', async () => {
    for (const version of REFERENCE_DATA_VERSIONS) {
      const data = await loadReferenceData(version);
      const fill = placeholderFiller(data.fixture, new Date('2026-11-25T10:00:00.000Z'));
      for (const each of SCHEME_SUITE_CASES) assert.doesNotThrow(() => fill(each.request), each.id);
      const held = new Set(data.accounts.map((account) => account.iban));
      for (const iban of [data.fixture.person.iban, data.fixture.organisation.iban])
        assert.ok(held.has(iban), iban);
      for (const account of Object.values(data.fixture.accounts))
        assert.ok(held.has(account.iban), account.iban);
      assert.ok(!held.has(data.fixture.unknownIban));
    }
  });

  it('fills the other spellings a case sends from the fixture', async () => {
    const data = await loadReferenceData('1.0.0');
    const fill = placeholderFiller(data.fixture, new Date('2026-11-25T10:00:00.000Z'));
    assert.deepEqual(
      fill([
        '{{person.ibanPrint}}',
        '{{responderBicLower}}',
        '{{requesterBic8}}',
        '{{foreignBic8}}',
        '{{organisation.leiLower}}',
      ]),
      [
        'DE88 5001 0517 0001 3925 01',
        'cobadeffxxx',
        'DEUTDEFF',
        'BNPAFRPP',
        '5299000j2n45ddne4y28',
      ],
    );
  });

  it('expects an outcome or an error of every case', () => {
    for (const each of SCHEME_SUITE_CASES) {
      const { expect } = each;
      if (expect.status === 200)
        assert.ok(expect.partyNameMatch ?? expect.partyIdMatch, `${each.id} names no outcome`);
      else assert.ok(expect.errorCode, `${each.id} names no error code`);
    }
  });
});

const result = (
  id: string,
  group: CaseResult['group'],
  outcome: CaseResult['outcome'],
): CaseResult => ({
  id,
  group,
  description: `case ${id} <&>`,
  outcome,
  failures: outcome === 'failed' ? ['status: expected 200, got 400'] : [],
  durationMs: 12,
});

describe('the compliance report', () => {
  it('gives the passed share overall and by group, with one decimal', () => {
    const report = complianceReport(
      [
        result('a', 'name', 'passed'),
        result('b', 'name', 'passed'),
        result('c', 'name', 'failed'),
        result('d', 'bic', 'skipped'),
      ],
      4,
    );
    assert.deepEqual(report, {
      summary: { totalTests: 4, passed: 2, failed: 1, skipped: 1, compliance: '50.0%' },
      compliance: { overall: '50.0%', byGroup: { name: '66.7%', bic: '0.0%' } },
    });
    assert.equal(compliancePercent(128, 131), '97.7%');
    assert.equal(compliancePercent(0, 0), '0.0%');
  });

  it('counts cases not yet run as not passed', () => {
    assert.equal(complianceReport([result('a', 'id', 'passed')], 131).summary.compliance, '0.8%');
  });

  it('writes JUnit XML: a suite per group, a failure with what did not hold, escaped text', () => {
    const xml = junitXml(
      'scheme139-25',
      [result('a', 'name', 'passed'), result('c', 'name', 'failed'), result('d', 'bic', 'skipped')],
      new Date('2026-11-25T10:00:00.000Z'),
    );
    assert.match(xml, /<testsuites name="scheme139-25" tests="3" failures="1" errors="0">/);
    assert.match(
      xml,
      /<testsuite name="scheme139-25.name" tests="2" failures="1" errors="0" skipped="0"/,
    );
    assert.match(
      xml,
      /<testsuite name="scheme139-25.bic" tests="1" failures="0" errors="0" skipped="1"/,
    );
    assert.match(
      xml,
      /name="c case c &lt;&amp;&gt;" time="0.012">\n {6}<failure message="status: expected 200, got 400">/,
    );
    assert.match(xml, /<skipped\/>/);
  });
});
