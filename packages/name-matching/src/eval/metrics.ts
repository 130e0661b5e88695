import type { MatchOutcome, NameMatcher } from '../types.js';
import type { LabelledCase } from './dataset.js';

export interface CaseOutcome {
  readonly labelled: LabelledCase;
  readonly actual: MatchOutcome;
}

export interface CategoryFigures {
  readonly category: string;
  readonly cases: number;
  readonly correct: number;
  readonly falseMatches: number;
}

export interface EvaluationReport {
  readonly cases: number;
  readonly accuracy: number;
  /** Share of expected-NMTC cases answered MTCH or CMTC. */
  readonly falseMatchRate: number;
  /** Share of expected-NMTC cases answered MTCH. */
  readonly falseMtchRate: number;
  /** Share of expected MTCH/CMTC cases answered NMTC. */
  readonly missedMatchRate: number;
  readonly byCategory: readonly CategoryFigures[];
  readonly errors: readonly CaseOutcome[];
}

export function evaluate(matcher: NameMatcher, cases: readonly LabelledCase[]): EvaluationReport {
  const outcomes: CaseOutcome[] = cases.map((labelled) => ({
    labelled,
    actual: matcher.match(labelled.typedName, labelled.holder).outcome,
  }));
  const negatives = outcomes.filter((o) => o.labelled.expected === 'NMTC');
  const positives = outcomes.filter((o) => o.labelled.expected !== 'NMTC');
  const correct = outcomes.filter((o) => o.actual === o.labelled.expected).length;
  const categories = new Map<string, { cases: number; correct: number; falseMatches: number }>();
  for (const o of outcomes) {
    const figures = categories.get(o.labelled.category) ?? {
      cases: 0,
      correct: 0,
      falseMatches: 0,
    };
    figures.cases++;
    if (o.actual === o.labelled.expected) figures.correct++;
    if (o.labelled.expected === 'NMTC' && o.actual !== 'NMTC') figures.falseMatches++;
    categories.set(o.labelled.category, figures);
  }
  const rate = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);
  return {
    cases: outcomes.length,
    accuracy: rate(correct, outcomes.length),
    falseMatchRate: rate(negatives.filter((o) => o.actual !== 'NMTC').length, negatives.length),
    falseMtchRate: rate(negatives.filter((o) => o.actual === 'MTCH').length, negatives.length),
    missedMatchRate: rate(positives.filter((o) => o.actual === 'NMTC').length, positives.length),
    byCategory: [...categories.entries()]
      .map(([category, f]) => ({ category, ...f }))
      .sort((a, b) => a.category.localeCompare(b.category)),
    errors: outcomes.filter((o) => o.actual !== o.labelled.expected),
  };
}

const percent = (x: number): string => `${(x * 100).toFixed(2)} %`;

export function formatReport(report: EvaluationReport, showErrors: boolean): string {
  const lines = [
    `cases             ${report.cases}`,
    `accuracy          ${percent(report.accuracy)}`,
    `false-match rate  ${percent(report.falseMatchRate)}   (MTCH or CMTC where NMTC expected)`,
    `false-MTCH rate   ${percent(report.falseMtchRate)}   (MTCH where NMTC expected)`,
    `missed matches    ${percent(report.missedMatchRate)}   (NMTC where MTCH or CMTC expected)`,
    '',
    `${'category'.padEnd(26)}${'cases'.padStart(7)}${'accuracy'.padStart(11)}${'false matches'.padStart(15)}`,
  ];
  for (const c of report.byCategory) {
    lines.push(
      `${c.category.padEnd(26)}${String(c.cases).padStart(7)}${percent(c.correct / c.cases).padStart(11)}${String(c.falseMatches).padStart(15)}`,
    );
  }
  if (showErrors && report.errors.length > 0) {
    lines.push('', 'disagreements (expected → actual):');
    for (const e of report.errors) {
      lines.push(
        `  [${e.labelled.category}] ${e.labelled.typedName} | ${e.labelled.holder.names.join(' | ')}: ${e.labelled.expected} → ${e.actual}`,
      );
    }
  }
  return lines.join('\n');
}
