import assert from 'node:assert/strict';
import { SCHEME_SUITE_CASES } from '@vop/conformance';
import { eventually, type HttpsClient } from '@vop/testing';

// The test toolkit's scheme report, as the embedded and distributed specs read it.

/** Polls GET /test/scheme/report/{id} until the run is no longer running, and returns the report. */
export async function reportWhenEnded(client: HttpsClient, testRunId: string) {
  return eventually(
    async () => {
      const answer = await client.get(`/test/scheme/report/${testRunId}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body.status === 'running' ? undefined : answer.body;
    },
    { timeoutMs: 180_000, intervalMs: 500, what: `test run ${testRunId} to end` },
  );
}

/** Every case of the suite, in order, passed: the report's case list, not only its summary. */
export function assertEveryCasePassed(report: any) {
  const failed = report.cases
    .filter((each: any) => each.outcome !== 'passed')
    .map((each: any) => `${each.id}: ${each.failures.join('; ')} ${JSON.stringify(each.actual)}`);
  assert.deepEqual(failed, []);
  assert.deepEqual(
    report.cases.map((each: any) => each.id),
    SCHEME_SUITE_CASES.map((each) => each.id),
  );
  for (const [index, suiteCase] of SCHEME_SUITE_CASES.entries()) {
    const recorded = report.cases[index];
    assert.deepEqual(recorded.expected, { ...suiteCase.expect }, suiteCase.id);
    assert.equal(recorded.actual.status, suiteCase.expect.status, suiteCase.id);
    if (suiteCase.expect.errorCode !== undefined)
      assert.equal(recorded.actual.code, suiteCase.expect.errorCode, suiteCase.id);
    const name = suiteCase.expect.partyNameMatch;
    if (typeof name === 'string' && name !== 'absent')
      assert.equal(recorded.actual.partyNameMatch, name, suiteCase.id);
    const id = suiteCase.expect.partyIdMatch;
    if (typeof id === 'string' && id !== 'absent')
      assert.equal(recorded.actual.partyIdMatch, id, suiteCase.id);
  }
  assert.deepEqual(report.summary, {
    totalTests: 131,
    passed: 131,
    failed: 0,
    skipped: 0,
    compliance: '100.0%',
  });
  assert.deepEqual(report.compliance, {
    overall: '100.0%',
    byGroup: { name: '100.0%', bic: '100.0%', lei: '100.0%', id: '100.0%' },
  });
}
