import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventStore, type SqlClient } from '@vop/event-store';
import type { TestCaseRecorded } from './test-run-decider.js';
import {
  handleTestRunCommand,
  interruptUnfinishedRuns,
  migrateTestRuns,
  RESTART_INTERRUPTION,
  STALE_RUN_MS,
  testReport,
  testReportJunit,
} from './test-runs.js';

const startedAt = '2026-11-25T10:00:00.000Z';
const caseData = (
  testRunId: string,
  caseId: string,
  outcome: 'passed' | 'failed',
): TestCaseRecorded['data'] => ({
  testRunId,
  caseId,
  group: caseId.includes('-N-') ? 'name' : 'bic',
  description: `case ${caseId}`,
  outcome,
  expected: { status: 200, partyNameMatch: 'MTCH' },
  actual:
    outcome === 'passed'
      ? { status: 200, partyNameMatch: 'MTCH' }
      : { status: 400, code: 'FORMAT_ERROR' },
  failures: outcome === 'passed' ? [] : ['status: expected 200, got 400'],
  durationMs: 9,
  recordedAt: '2026-11-25T10:00:01.000Z',
});

/** Test runs in the gateway's store: the report folded from the stream, the status table, restarts. */
export function testRunsSpec(name: string, setup: () => Promise<SqlClient>) {
  describe(`test runs (${name})`, () => {
    let sql: SqlClient;
    let store: EventStore;
    before(async () => {
      sql = await setup();
      store = new EventStore(sql, { schema: 'gateway' });
      await store.migrate();
      await migrateTestRuns(sql, 'gateway');
    });
    after(async () => sql.close());

    const start = (testRunId: string, instanceId = 'gateway-1') =>
      handleTestRunCommand(store, {
        type: 'StartTestRun',
        data: {
          testRunId,
          testSuite: 'scheme139-25',
          totalTests: 131,
          target: 'self',
          generateReport: true,
          startedAt,
          instanceId,
        },
      });

    it('reports a running run case by case, counting cases not yet run as not passed', async () => {
      const testRunId = '9a7c4d1e-0000-4000-8000-000000000001';
      await start(testRunId);
      await handleTestRunCommand(store, {
        type: 'RecordTestCase',
        data: caseData(testRunId, 'S139-N-01', 'passed'),
      });
      await handleTestRunCommand(store, {
        type: 'RecordTestCase',
        data: caseData(testRunId, 'S139-B-01', 'failed'),
      });
      // Told again (a retried append): nothing new.
      await handleTestRunCommand(store, {
        type: 'RecordTestCase',
        data: caseData(testRunId, 'S139-B-01', 'failed'),
      });
      const report = await testReport(store, testRunId);
      assert.equal(report?.status, 'running');
      assert.deepEqual(
        report?.cases.map((each) => [each.id, each.outcome, each.actual]),
        [
          ['S139-N-01', 'passed', { status: 200, partyNameMatch: 'MTCH' }],
          ['S139-B-01', 'failed', { status: 400, code: 'FORMAT_ERROR' }],
        ],
      );
      assert.deepEqual(report?.summary, {
        totalTests: 131,
        passed: 1,
        failed: 1,
        skipped: 0,
        compliance: '0.8%',
      });
      assert.deepEqual(report?.compliance.byGroup, { name: '100.0%', bic: '0.0%' });

      await handleTestRunCommand(store, {
        type: 'CompleteTestRun',
        testRunId,
        now: '2026-11-25T10:00:06.000Z',
      });
      const completed = await testReport(store, testRunId);
      assert.equal(completed?.status, 'completed');
      assert.equal(completed?.endedAt, '2026-11-25T10:00:06.000Z');
      const junit = testReportJunit(completed!);
      assert.match(junit, /<testsuites name="scheme139-25" tests="2" failures="1" errors="0">/);
    });

    it('interrupts at a start the runs this instance left running, and silent ones of any instance', async () => {
      const cutOff = '9a7c4d1e-0000-4000-8000-000000000002';
      const finished = '9a7c4d1e-0000-4000-8000-000000000003';
      const anotherInstances = '9a7c4d1e-0000-4000-8000-000000000004';
      await start(cutOff);
      await handleTestRunCommand(store, {
        type: 'RecordTestCase',
        data: caseData(cutOff, 'S139-N-01', 'passed'),
      });
      await start(finished);
      await handleTestRunCommand(store, {
        type: 'CompleteTestRun',
        testRunId: finished,
        now: '2026-11-25T10:00:07.000Z',
      });
      await start(anotherInstances, 'gateway-2');
      await handleTestRunCommand(store, {
        type: 'RecordTestCase',
        data: caseData(anotherInstances, 'S139-N-01', 'passed'),
      });
      // gateway-1 is back ten seconds after the last case of each: its own run ends, gateway-2's goes on.
      const restart = new Date('2026-11-25T10:00:11.000Z');
      assert.equal(
        await interruptUnfinishedRuns(store, { instanceId: 'gateway-1', now: restart }),
        1,
      );
      const interrupted = await testReport(store, cutOff);
      assert.equal(interrupted?.status, 'interrupted');
      assert.equal(interrupted?.interruption, RESTART_INTERRUPTION);
      assert.equal(interrupted?.cases.length, 1);
      assert.equal((await testReport(store, finished))?.status, 'completed');
      assert.equal((await testReport(store, anotherInstances))?.status, 'running');
      // Silent past STALE_RUN_MS: gateway-2 is gone, whoever looks.
      const later = new Date(Date.parse('2026-11-25T10:00:01.000Z') + STALE_RUN_MS + 1);
      assert.equal(await interruptUnfinishedRuns(store, { now: later }), 1);
      assert.equal((await testReport(store, anotherInstances))?.status, 'interrupted');
      assert.equal(
        await interruptUnfinishedRuns(store, { instanceId: 'gateway-1', now: later }),
        0,
      );
    });

    it('has no report for a run that never started', async () => {
      assert.equal(await testReport(store, '9a7c4d1e-0000-4000-8000-0000000000ff'), undefined);
    });
  });
}
