import type { ConformanceGroup } from '@vop/conformance';

/** One run of a suite, one stream: `test-run-<id>`. */
export const testRunStreamId = (testRunId: string): string => `test-run-${testRunId}`;

/**
 * What a case's answer was, without the body's text: outcomes, error code, and whether a matched
 * name came back (never the name: a report is shown to whoever ran it, an event kept for good).
 */
export interface RecordedAnswer {
  status?: number;
  partyNameMatch?: string;
  partyIdMatch?: string;
  matchedName?: 'present';
  code?: string;
}

export interface TestRunStarted {
  type: 'TestRunStarted';
  data: {
    testRunId: string;
    testSuite: string;
    totalTests: number;
    /** `self`, or the origin (scheme, host, port) of another responder; never its credentials. */
    target: string;
    generateReport: boolean;
    startedAt: string;
    /** The gateway instance running it (VOP_INSTANCE_ID): its restart interrupts the run at once. */
    instanceId: string;
    /** A run against this deployment: the reference data it found or opened itself before its cases. */
    referenceData?: {
      dataSet: string;
      version: string;
      accounts: number;
      loaded: number;
      alreadyPresent: number;
    };
  };
}

export interface TestCaseRecorded {
  type: 'TestCaseRecorded';
  data: {
    testRunId: string;
    caseId: string;
    group: ConformanceGroup;
    description: string;
    outcome: 'passed' | 'failed' | 'skipped';
    expected: Record<string, unknown>;
    actual: RecordedAnswer;
    failures: string[];
    durationMs: number;
    recordedAt: string;
  };
}

export interface TestRunCompleted {
  type: 'TestRunCompleted';
  data: { testRunId: string; endedAt: string };
}

export interface TestRunInterrupted {
  type: 'TestRunInterrupted';
  data: { testRunId: string; endedAt: string; reason: string };
}

export type TestRunEvent =
  TestRunStarted | TestCaseRecorded | TestRunCompleted | TestRunInterrupted;

export type TestRunCommand =
  | { type: 'StartTestRun'; data: TestRunStarted['data'] }
  | { type: 'RecordTestCase'; data: TestCaseRecorded['data'] }
  | { type: 'CompleteTestRun'; testRunId: string; now: string }
  | { type: 'InterruptTestRun'; testRunId: string; now: string; reason: string };

export interface TestRunState {
  status: 'none' | 'running' | 'completed' | 'interrupted';
  totalTests: number;
  recordedCaseIds: readonly string[];
}

export const initialTestRunState: TestRunState = {
  status: 'none',
  totalTests: 0,
  recordedCaseIds: [],
};

export class TestRunStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TestRunStateError';
  }
}

/**
 * A run starts once, records each case once, and ends once: completed after its last case, or
 * interrupted (the service stopped under it). A case told twice (a retried append) adds nothing.
 */
export function decideTestRun(command: TestRunCommand, state: TestRunState): TestRunEvent[] {
  switch (command.type) {
    case 'StartTestRun':
      if (state.status !== 'none') throw new TestRunStateError('The test run already exists');
      return [{ type: 'TestRunStarted', data: command.data }];
    case 'RecordTestCase':
      if (state.status !== 'running') throw new TestRunStateError('The test run is not running');
      if (state.recordedCaseIds.includes(command.data.caseId)) return [];
      return [{ type: 'TestCaseRecorded', data: command.data }];
    case 'CompleteTestRun':
      if (state.status !== 'running') throw new TestRunStateError('The test run is not running');
      return [
        { type: 'TestRunCompleted', data: { testRunId: command.testRunId, endedAt: command.now } },
      ];
    case 'InterruptTestRun':
      if (state.status !== 'running') return [];
      return [
        {
          type: 'TestRunInterrupted',
          data: { testRunId: command.testRunId, endedAt: command.now, reason: command.reason },
        },
      ];
  }
}

export function evolveTestRun(state: TestRunState, event: TestRunEvent): TestRunState {
  switch (event.type) {
    case 'TestRunStarted':
      return { ...state, status: 'running', totalTests: event.data.totalTests };
    case 'TestCaseRecorded':
      return { ...state, recordedCaseIds: [...state.recordedCaseIds, event.data.caseId] };
    case 'TestRunCompleted':
      return { ...state, status: 'completed' };
    case 'TestRunInterrupted':
      return { ...state, status: 'interrupted' };
  }
}
