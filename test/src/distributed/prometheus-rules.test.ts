import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { promtoolPath, servedMetricNames } from '../observability/prometheus.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const prometheusDir = path.join(repoRoot, 'infra/prometheus');

/** Metric names an expression reads: identifiers followed by `{`, `[` or used bare, minus PromQL words. */
function metricNamesIn(expression: string): string[] {
  const words = new Set([
    'sum',
    'by',
    'rate',
    'increase',
    'histogram_quantile',
    'max',
    'and',
    'or',
    'le',
    'up',
    'without',
  ]);
  const withoutStrings = expression.replace(/"[^"]*"/g, '""').replace(/\{[^}]*\}/g, '{}');
  const byClauses = withoutStrings.replace(/\b(by|without)\s*\([^)]*\)/g, '');
  return [...byClauses.matchAll(/\b([a-z_][a-z0-9_:]*)\b/g)]
    .map((match) => match[1]!)
    .filter((name) => !words.has(name) && !/^\d/.test(name) && !name.includes(':'));
}

describe('Prometheus rules and the Grafana dashboard', () => {
  it('promtool accepts the rules and their unit tests pass', async () => {
    const promtool = promtoolPath();
    const checked = await run(promtool, ['check', 'rules', 'vop.rules.yml'], {
      cwd: prometheusDir,
    });
    assert.match(checked.stdout + checked.stderr, /SUCCESS: \d+ rules found/);
    // The probing alerts (issue 39) and the requesting side's (issue 40) have files of their own:
    // cases that fire and cases that stay silent.
    for (const tests of [
      'vop.rules.test.yml',
      'vop-enumeration.rules.test.yml',
      'vop-requester.rules.test.yml',
    ]) {
      const tested = await run(promtool, ['test', 'rules', tests], { cwd: prometheusDir });
      assert.match(tested.stdout + tested.stderr, /SUCCESS/, tests);
    }
  });

  it('the dashboard parses and its panels read only metrics the services serve', async () => {
    const dashboard = JSON.parse(
      await readFile(path.join(repoRoot, 'infra/grafana/vop-dashboard.json'), 'utf8'),
    ) as { uid: string; panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
    assert.equal(dashboard.uid, 'vop-overview');
    const served = servedMetricNames();
    const read = dashboard.panels.flatMap((panel) =>
      // A row panel (a heading) reads nothing.
      (panel.targets ?? []).flatMap((target) => metricNamesIn(target.expr)),
    );
    assert.ok(read.length >= 10, 'every panel reads a metric');
    for (const name of read) assert.ok(served.has(name), `${name} is served by no service`);
    for (const wanted of [
      'consumer_lag',
      'outbox_lag_events',
      'verification_outcomes_total',
      'requester_requests_total',
      'requester_breaker_state',
    ])
      assert.ok(read.includes(wanted), `the dashboard shows ${wanted}`);
  });

  it('the alert rules read only metrics the services serve', async () => {
    const rules = await readFile(path.join(prometheusDir, 'vop.rules.yml'), 'utf8');
    const expressions = [...rules.matchAll(/expr: (\|\n(?:\s{10,}.*\n)+|.*)/g)].map((m) => m[1]!);
    assert.ok(expressions.length >= 10);
    const served = servedMetricNames();
    for (const name of expressions.flatMap(metricNamesIn))
      assert.ok(served.has(name), `${name} is served by no service`);
  });
});
