import { describe, it } from 'node:test';
import { deciderSpec } from '@vop/testing';
import {
  decideTestRun,
  evolveTestRun,
  initialTestRunState,
  TestRunStateError,
  type TestCaseRecorded,
  type TestRunStarted,
} from './test-run-decider.js';

const spec = deciderSpec({
  decide: decideTestRun,
  evolve: evolveTestRun,
  initialState: initialTestRunState,
});
const testRunId = '0b6c2f0e-5d7a-4f43-9f5e-2f0c7d8f1a01';
const started: TestRunStarted = {
  type: 'TestRunStarted',
  data: {
    testRunId,
    testSuite: 'scheme139-25',
    totalTests: 131,
    target: 'self',
    generateReport: true,
    startedAt: '2026-11-25T10:00:00.000Z',
    instanceId: 'gateway-1',
  },
};
const recorded: TestCaseRecorded = {
  type: 'TestCaseRecorded',
  data: {
    testRunId,
    caseId: 'S139-N-01',
    group: 'name',
    description: 'The exact name',
    outcome: 'passed',
    expected: { status: 200, partyNameMatch: 'MTCH' },
    actual: { status: 200, partyNameMatch: 'MTCH' },
    failures: [],
    durationMs: 14,
    recordedAt: '2026-11-25T10:00:00.020Z',
  },
};
const now = '2026-11-25T10:00:05.000Z';

describe('test run decider', () => {
  it('starts a run once', () => {
    spec.given([]).when({ type: 'StartTestRun', data: started.data }).then([started]);
    spec
      .given([started])
      .when({ type: 'StartTestRun', data: started.data })
      .thenThrows(TestRunStateError);
  });

  it('records each case once; a case told again adds nothing', () => {
    spec.given([started]).when({ type: 'RecordTestCase', data: recorded.data }).then([recorded]);
    spec.given([started, recorded]).when({ type: 'RecordTestCase', data: recorded.data }).then([]);
  });

  it('completes a running run; a run that ended takes no more cases', () => {
    const completed = { type: 'TestRunCompleted' as const, data: { testRunId, endedAt: now } };
    spec
      .given([started, recorded])
      .when({ type: 'CompleteTestRun', testRunId, now })
      .then([completed]);
    spec
      .given([started, completed])
      .when({ type: 'RecordTestCase', data: recorded.data })
      .thenThrows(TestRunStateError);
  });

  it('marks a run the service stopped under as interrupted, and only a running one', () => {
    const reason = 'the service restarted during the run';
    const interrupted = {
      type: 'TestRunInterrupted' as const,
      data: { testRunId, endedAt: now, reason },
    };
    spec
      .given([started, recorded])
      .when({ type: 'InterruptTestRun', testRunId, now, reason })
      .then([interrupted]);
    spec
      .given([started, { type: 'TestRunCompleted', data: { testRunId, endedAt: now } }])
      .when({ type: 'InterruptTestRun', testRunId, now, reason })
      .then([]);
  });
});
