import type { CaseResult, ConformanceGroup } from './types.js';

/** A share as the reports print it: one decimal and a percent sign ("97.7%"). */
export function compliancePercent(passed: number, total: number): string {
  return `${total === 0 ? '0.0' : ((passed / total) * 100).toFixed(1)}%`;
}

export interface ComplianceSummary {
  totalTests: number;
  passed: number;
  failed: number;
  skipped: number;
  compliance: string;
}

export interface ComplianceReport {
  summary: ComplianceSummary;
  compliance: { overall: string; byGroup: Partial<Record<ConformanceGroup, string>> };
}

/**
 * Overall and per group: the passed share of every case of the suite (a skipped or unrun case is
 * not a pass, so compliance never looks better than what was shown).
 */
export function complianceReport(
  results: readonly Pick<CaseResult, 'group' | 'outcome'>[],
  totalTests = results.length,
): ComplianceReport {
  const passed = results.filter((result) => result.outcome === 'passed').length;
  const failed = results.filter((result) => result.outcome === 'failed').length;
  const skipped = results.filter((result) => result.outcome === 'skipped').length;
  const byGroup: Partial<Record<ConformanceGroup, string>> = {};
  for (const group of new Set(results.map((result) => result.group))) {
    const ofGroup = results.filter((result) => result.group === group);
    const passedOfGroup = ofGroup.filter((result) => result.outcome === 'passed').length;
    byGroup[group] = compliancePercent(passedOfGroup, ofGroup.length);
  }
  const overall = compliancePercent(passed, totalTests);
  return {
    summary: { totalTests, passed, failed, skipped, compliance: overall },
    compliance: { overall, byGroup },
  };
}

const escapeXml = (text: string): string =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    // XML 1.0 has no form for most control characters: drop them.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

/**
 * JUnit XML as CI servers read it: one <testsuite> per group, one <testcase> per case, a
 * <failure> listing what did not hold, <skipped/> for a case without its certificate.
 */
export function junitXml(
  suiteName: string,
  results: readonly CaseResult[],
  timestamp: Date,
): string {
  const groups = [...new Set(results.map((result) => result.group))];
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const suites = groups.map((group) => {
    const ofGroup = results.filter((result) => result.group === group);
    const cases = ofGroup.map((result) => {
      const open = `    <testcase classname="${escapeXml(`${suiteName}.${group}`)}" name="${escapeXml(
        `${result.id} ${result.description}`,
      )}" time="${seconds(result.durationMs)}"`;
      if (result.outcome === 'passed') return `${open}/>`;
      if (result.outcome === 'skipped') return `${open}>\n      <skipped/>\n    </testcase>`;
      const message = escapeXml(result.failures[0] ?? 'failed');
      const detail = escapeXml(result.failures.join('\n'));
      return `${open}>\n      <failure message="${message}">${detail}</failure>\n    </testcase>`;
    });
    const failures = ofGroup.filter((result) => result.outcome === 'failed').length;
    const skipped = ofGroup.filter((result) => result.outcome === 'skipped').length;
    const time = seconds(ofGroup.reduce((sum, result) => sum + result.durationMs, 0));
    return [
      `  <testsuite name="${escapeXml(`${suiteName}.${group}`)}" tests="${ofGroup.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}" timestamp="${timestamp.toISOString()}">`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  const failures = results.filter((result) => result.outcome === 'failed').length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(suiteName)}" tests="${results.length}" failures="${failures}" errors="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
