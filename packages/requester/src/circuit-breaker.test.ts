import { describe, it } from 'node:test';
import { deciderSpec } from '@vop/testing';
import {
  decideBreaker,
  evolveBreaker,
  initialBreakerState,
  type BreakerCommand,
  type BreakerEvent,
  type BreakerSettings,
  type BreakerState,
} from './circuit-breaker.js';

const settings: BreakerSettings = {
  consecutiveFailures: 3,
  failureRatio: 0.5,
  minimumCalls: 6,
  windowMs: 10_000,
  coolDownMs: 5_000,
};

const spec = deciderSpec<BreakerCommand, BreakerEvent, BreakerState>({
  decide: (command, state) => decideBreaker(command, state, settings),
  evolve: (state, event) => evolveBreaker(state, event, settings),
  initialState: initialBreakerState(),
});

const failure = (at: number): BreakerEvent => ({ type: 'ResultRecorded', failed: true, at });
const success = (at: number): BreakerEvent => ({ type: 'ResultRecorded', failed: false, at });
const failed = (now: number, probe = false): BreakerCommand => ({
  type: 'RecordResult',
  failed: true,
  probe,
  now,
});
const succeeded = (now: number, probe = false): BreakerCommand => ({
  type: 'RecordResult',
  failed: false,
  probe,
  now,
});

describe('the circuit breaker of one responder', () => {
  it('given a closed breaker, when a call comes, then it is admitted (no probe)', () => {
    spec
      .given([])
      .when({ type: 'AdmitCall', now: 0 })
      .then([{ type: 'CallAdmitted', probe: false }]);
  });

  it('given two failures in a row, when a third fails, then it opens', () => {
    spec
      .given([failure(100), failure(200)])
      .when(failed(300))
      .then([{ type: 'Opened', at: 300 }]);
  });

  it('given two failures then a success, when one fails, then it stays closed (the run broke)', () => {
    spec
      .given([failure(100), failure(200), success(250)])
      .when(failed(300))
      .then([{ type: 'ResultRecorded', failed: true, at: 300 }]);
  });

  it('given half of the window failed, when the minimum of calls is reached by a failure, then it opens', () => {
    spec
      .given([failure(0), success(100), failure(200), success(300), success(400)])
      .when(failed(500))
      .then([{ type: 'Opened', at: 500 }]);
  });

  it('given the same share failed but outside the window, when one fails, then it stays closed', () => {
    spec
      .given([failure(0), success(100), failure(200), success(300), success(400)])
      .when(failed(20_000))
      .then([{ type: 'ResultRecorded', failed: true, at: 20_000 }]);
  });

  it('given an open breaker, when a call comes within the cool-down, then it is refused', () => {
    spec
      .given([{ type: 'Opened', at: 1_000 }])
      .when({ type: 'AdmitCall', now: 5_999 })
      .then([{ type: 'CallRefused', openedAt: 1_000 }]);
  });

  it('given an open breaker, when a call comes after the cool-down, then it goes as the one probe', () => {
    spec
      .given([{ type: 'Opened', at: 1_000 }])
      .when({ type: 'AdmitCall', now: 6_000 })
      .then([{ type: 'HalfOpened' }, { type: 'CallAdmitted', probe: true }]);
  });

  it('given a probe in flight, when another call comes, then it is refused', () => {
    spec
      .given([
        { type: 'Opened', at: 0 },
        { type: 'HalfOpened' },
        { type: 'CallAdmitted', probe: true },
      ])
      .when({ type: 'AdmitCall', now: 6_000 })
      .then([{ type: 'CallRefused', openedAt: undefined }]);
  });

  it('given a probe in flight, when it succeeds, then the breaker closes', () => {
    spec
      .given([
        { type: 'Opened', at: 0 },
        { type: 'HalfOpened' },
        { type: 'CallAdmitted', probe: true },
      ])
      .when(succeeded(6_100, true))
      .then([{ type: 'Closed' }]);
  });

  it('given a probe in flight, when it fails, then the breaker opens again from now', () => {
    spec
      .given([
        { type: 'Opened', at: 0 },
        { type: 'HalfOpened' },
        { type: 'CallAdmitted', probe: true },
      ])
      .when(failed(6_100, true))
      .then([{ type: 'Opened', at: 6_100 }]);
  });

  it('given an open breaker, when a call admitted before it opened ends, then nothing changes', () => {
    spec
      .given([{ type: 'Opened', at: 0 }])
      .when(failed(100))
      .then([]);
  });

  it('given a probe that our own budget refused, when it is abandoned, then the next call may probe', () => {
    spec
      .given([
        { type: 'Opened', at: 0 },
        { type: 'HalfOpened' },
        { type: 'CallAdmitted', probe: true },
      ])
      .when({ type: 'AbandonCall', probe: true })
      .then([{ type: 'ProbeAbandoned' }]);
    spec
      .given([
        { type: 'Opened', at: 0 },
        { type: 'HalfOpened' },
        { type: 'CallAdmitted', probe: true },
        { type: 'ProbeAbandoned' },
      ])
      .when({ type: 'AdmitCall', now: 6_000 })
      .then([{ type: 'CallAdmitted', probe: true }]);
  });
});
