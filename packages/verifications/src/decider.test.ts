import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  VerificationCompletedData,
  VerificationEvent,
  VerificationRequestedData,
} from '@vop/contracts';
import { deciderSpec } from '@vop/testing';
import {
  decideVerification,
  endVerification,
  evolveVerification,
  initialVerificationState,
  requestVerification,
  VerificationAlreadyRequestedError,
  VerificationNotPendingError,
  type VerificationCommand,
  type VerificationEndCommand,
  type VerificationState,
} from './decider.js';

const spec = deciderSpec<VerificationCommand, VerificationEvent, VerificationState>({
  decide: decideVerification,
  evolve: evolveVerification,
  initialState: initialVerificationState,
});
const verificationId = '5b7e3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a';
const requestedAt = '2026-03-01T09:00:00.000Z';
const request: VerificationRequestedData = {
  verificationId,
  family: 'scheme',
  iban: 'DE89370400440532013000',
  name: 'Erika Mustermann',
  participant: 'PSDDE-BAFIN-123456',
  requestedAt,
};
const requested: VerificationEvent = { type: 'VerificationRequested', data: request };
const completion: VerificationCompletedData = {
  verificationId,
  family: 'scheme',
  outcome: 'MTCH',
  score: 1,
  reasons: [],
  completedAt: '2026-03-01T09:00:00.020Z',
};
const { verificationId: _id, requestedAt: _at, ...fields } = request;

describe('verification decider', () => {
  it('given nothing, when a verification is requested, then VerificationRequested carries the given id, time and participant', () => {
    spec
      .given([])
      .when({ type: 'RequestVerification', verificationId, requestedAt, fields })
      .then([requested]);
  });

  it('given a requested verification, when it is requested again, then it is refused', () => {
    spec
      .given([requested])
      .when({ type: 'RequestVerification', verificationId, requestedAt, fields })
      .thenThrows(VerificationAlreadyRequestedError);
  });

  it('given a requested verification, when it completes, then VerificationCompleted answers in the family asked in and names the participant', () => {
    spec
      .given([requested])
      .when({ type: 'CompleteVerification', completion: { ...completion, family: 'epc' } })
      .then([
        {
          type: 'VerificationCompleted',
          data: { ...completion, participant: 'PSDDE-BAFIN-123456' },
        },
      ]);
  });

  it('given a requested batch entry, when it completes, then VerificationCompleted carries the batch entry', () => {
    const batch = { batchId: 'payroll-2026-03', entryId: 'e-17' };
    spec
      .given([{ type: 'VerificationRequested', data: { ...request, family: 'batch', batch } }])
      .when({ type: 'CompleteVerification', completion })
      .then([
        {
          type: 'VerificationCompleted',
          data: { ...completion, family: 'batch', participant: 'PSDDE-BAFIN-123456', batch },
        },
      ]);
  });

  it('given a completed verification, when it completes again, then it is refused', () => {
    spec
      .given([requested, { type: 'VerificationCompleted', data: completion }])
      .when({ type: 'CompleteVerification', completion })
      .thenThrows(VerificationNotPendingError);
  });

  it('given nothing, when a completion arrives, then it is refused (no request to answer)', () => {
    spec
      .given([])
      .when({ type: 'CompleteVerification', completion })
      .thenThrows(VerificationNotPendingError);
  });

  const failedAt = '2026-03-01T09:00:03.000Z';
  const failed: VerificationEvent = {
    type: 'VerificationFailed',
    data: {
      verificationId,
      family: 'scheme',
      reason: 'TIMEOUT',
      participant: 'PSDDE-BAFIN-123456',
      failedAt,
    },
  };

  it('given a requested verification, when it fails, then VerificationFailed names the reason, family and participant', () => {
    spec
      .given([requested])
      .when({ type: 'FailVerification', verificationId, reason: 'TIMEOUT', failedAt })
      .then([failed]);
  });

  it('given a failed verification, when a completion arrives after, then it is refused (the first end wins)', () => {
    spec
      .given([requested, failed])
      .when({ type: 'CompleteVerification', completion })
      .thenThrows(VerificationNotPendingError);
  });

  it('given a completed verification, when it fails after, then it is refused (the first end wins)', () => {
    spec
      .given([
        requested,
        {
          type: 'VerificationCompleted',
          data: { ...completion, participant: 'PSDDE-BAFIN-123456' },
        },
      ])
      .when({ type: 'FailVerification', verificationId, reason: 'TIMEOUT', failedAt })
      .thenThrows(VerificationNotPendingError);
  });

  it('given nothing, when a failure arrives, then it is refused (no request to end)', () => {
    spec
      .given([])
      .when({ type: 'FailVerification', verificationId, reason: 'ERROR', failedAt })
      .thenThrows(VerificationNotPendingError);
  });

  it('endVerification, given the request itself, ends it as decideVerification does from the requested state', () => {
    const entry = {
      ...request,
      family: 'batch' as const,
      batch: { batchId: 'b-1', entryId: 'e-1' },
    };
    const state = evolveVerification(initialVerificationState, {
      type: 'VerificationRequested',
      data: entry,
    });
    const ends: VerificationEndCommand[] = [
      { type: 'CompleteVerification', completion },
      { type: 'FailVerification', verificationId, reason: 'ERROR', failedAt },
    ];
    for (const command of ends)
      assert.deepEqual([endVerification(entry, command)], decideVerification(command, state));
  });

  it('endVerification refuses an end for another verification', () => {
    const other = '0c0c0c0c-9d2f-4e8b-a1c3-7f6e5d4c3b2a';
    assert.throws(
      () =>
        endVerification(request, {
          type: 'CompleteVerification',
          completion: { ...completion, verificationId: other },
        }),
      VerificationNotPendingError,
    );
    assert.throws(
      () =>
        endVerification(request, {
          type: 'FailVerification',
          verificationId: other,
          reason: 'ERROR',
          failedAt,
        }),
      VerificationNotPendingError,
    );
  });

  it('requestVerification takes its id and clock from the caller', () => {
    const data = requestVerification(fields, {
      newId: () => verificationId,
      now: () => new Date(requestedAt),
    });
    assert.deepEqual(data, request);
  });
});
