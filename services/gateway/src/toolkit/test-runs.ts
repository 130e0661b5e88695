import {
  complianceReport,
  junitXml,
  type CaseResult,
  type ConformanceGroup,
} from '@vop/conformance';
import {
  handleCommand,
  schemaMigration,
  type EventStore,
  type SqlExecutor,
} from '@vop/event-store';
import {
  decideTestRun,
  evolveTestRun,
  initialTestRunState,
  testRunStreamId,
  type TestCaseRecorded,
  type TestRunCommand,
  type TestRunEvent,
  type TestRunStarted,
} from './test-run-decider.js';

/** Why a run that was running when the service stopped is marked so at the next start. */
export const RESTART_INTERRUPTION = 'the service stopped during the run; start a new run';

/**
 * A running run records a case every few seconds at most (a case's request times out after 5 s):
 * one silent this long was left by an instance that is gone, whatever its instance id now.
 */
export const STALE_RUN_MS = 30_000;

const TABLE = 'toolkit_test_runs';

/**
 * The read model of run ids by status, so a start finds the runs left running. Under the migration
 * lock: gateways starting together would otherwise race on CREATE TABLE.
 */
export const migrateTestRuns = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.${TABLE} (
       test_run_id uuid PRIMARY KEY,
       instance_id text NOT NULL,
       status text NOT NULL,
       started_at timestamptz NOT NULL,
       last_activity_at timestamptz NOT NULL
     )`,
]);

function testRunIdOf(command: TestRunCommand): string {
  return command.type === 'StartTestRun' || command.type === 'RecordTestCase'
    ? command.data.testRunId
    : command.testRunId;
}

async function readRun(store: EventStore, testRunId: string) {
  const stored = await store.readStream(testRunStreamId(testRunId));
  return stored.map((event) => ({ type: event.type, data: event.data }) as TestRunEvent);
}

const testRunDecider = {
  decide: decideTestRun,
  evolve: evolveTestRun,
  initialState: () => initialTestRunState,
};

/** Loads the run, decides, appends at the version read and keeps the status table in step. */
export async function handleTestRunCommand(
  store: EventStore,
  command: TestRunCommand,
): Promise<TestRunEvent[]> {
  const testRunId = testRunIdOf(command);
  const { newEvents } = await handleCommand(
    store,
    testRunStreamId(testRunId),
    testRunDecider,
    command,
    {
      afterAppend: ({ newEvents: events }, tx) =>
        projectTestRunStatus(tx, store.schema, testRunId, events),
    },
  );
  return newEvents;
}

async function projectTestRunStatus(
  tx: SqlExecutor,
  schema: string,
  testRunId: string,
  events: readonly TestRunEvent[],
): Promise<void> {
  for (const event of events) {
    if (event.type === 'TestRunStarted')
      await tx.query(
        `INSERT INTO ${schema}.${TABLE}
           (test_run_id, instance_id, status, started_at, last_activity_at)
         VALUES ($1, $2, 'running', $3, $3)`,
        [testRunId, event.data.instanceId, event.data.startedAt],
      );
    else if (event.type === 'TestCaseRecorded')
      await tx.query(`UPDATE ${schema}.${TABLE} SET last_activity_at = $2 WHERE test_run_id = $1`, [
        testRunId,
        event.data.recordedAt,
      ]);
    else
      await tx.query(`UPDATE ${schema}.${TABLE} SET status = $2 WHERE test_run_id = $1`, [
        testRunId,
        event.type === 'TestRunCompleted' ? 'completed' : 'interrupted',
      ]);
  }
}

/**
 * Runs left running by a stop end as interrupted: at an instance's start its own at once (the same
 * VOP_INSTANCE_ID), and any run silent for STALE_RUN_MS whoever ran it (an instance that crashed and
 * came back under another id). Another instance's live run is never touched.
 */
export async function interruptUnfinishedRuns(
  store: EventStore,
  options: { instanceId?: string; now: Date },
): Promise<number> {
  const staleBefore = new Date(options.now.getTime() - STALE_RUN_MS).toISOString();
  const { rows } = await store.sql.query<{ test_run_id: string }>(
    `SELECT test_run_id::text AS test_run_id FROM ${store.schema}.${TABLE}
      WHERE status = 'running' AND (instance_id = $1 OR last_activity_at < $2)`,
    [options.instanceId ?? null, staleBefore],
  );
  const now = options.now;
  for (const { test_run_id: testRunId } of rows)
    await handleTestRunCommand(store, {
      type: 'InterruptTestRun',
      testRunId,
      now: now.toISOString(),
      reason: RESTART_INTERRUPTION,
    });
  return rows.length;
}

export interface TestReportView {
  testRunId: string;
  testSuite: string;
  status: 'running' | 'completed' | 'interrupted';
  target: string;
  startedAt: string;
  endedAt?: string;
  interruption?: string;
  /** A run against this deployment: `loaded` counts the reference accounts it opened itself. */
  referenceData?: NonNullable<TestRunStarted['data']['referenceData']>;
  generateReport: boolean;
  summary: ReturnType<typeof complianceReport>['summary'];
  compliance: ReturnType<typeof complianceReport>['compliance'];
  cases: Array<{
    id: string;
    group: ConformanceGroup;
    description: string;
    outcome: 'passed' | 'failed' | 'skipped';
    expected: Record<string, unknown>;
    actual: TestCaseRecorded['data']['actual'];
    failures: string[];
    durationMs: number;
  }>;
}

/** The report of a run, folded from its stream; undefined when no such run exists. */
export async function testReport(
  store: EventStore,
  testRunId: string,
): Promise<TestReportView | undefined> {
  const events = await readRun(store, testRunId);
  const started = events.find((event): event is TestRunStarted => event.type === 'TestRunStarted');
  if (started === undefined) return undefined;
  const cases = events
    .filter((event): event is TestCaseRecorded => event.type === 'TestCaseRecorded')
    .map(({ data }) => ({
      id: data.caseId,
      group: data.group,
      description: data.description,
      outcome: data.outcome,
      expected: data.expected,
      actual: data.actual,
      failures: data.failures,
      durationMs: data.durationMs,
    }));
  const end = events.find(
    (event) => event.type === 'TestRunCompleted' || event.type === 'TestRunInterrupted',
  );
  const { summary, compliance } = complianceReport(cases, started.data.totalTests);
  return {
    testRunId,
    testSuite: started.data.testSuite,
    status:
      end?.type === 'TestRunCompleted'
        ? 'completed'
        : end?.type === 'TestRunInterrupted'
          ? 'interrupted'
          : 'running',
    target: started.data.target,
    startedAt: started.data.startedAt,
    ...(end && { endedAt: end.data.endedAt }),
    ...(end?.type === 'TestRunInterrupted' && { interruption: end.data.reason }),
    ...(started.data.referenceData && { referenceData: started.data.referenceData }),
    generateReport: started.data.generateReport,
    summary,
    compliance,
    cases,
  };
}

/** The JUnit XML of a report, as the command-line runner writes it. */
export function testReportJunit(report: TestReportView): string {
  const results: CaseResult[] = report.cases.map((each) => ({
    id: each.id,
    group: each.group,
    description: each.description,
    outcome: each.outcome,
    failures: each.failures,
    durationMs: each.durationMs,
  }));
  return junitXml(report.testSuite, results, new Date(report.startedAt));
}
