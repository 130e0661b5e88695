import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SchemeDirectorySnapshot } from '@vop/contracts';
import { deciderSpec } from '@vop/testing';
import { LoadVersionMismatchError } from './load-version-mismatch.js';
import {
  DuplicateParticipantError,
  DuplicatePriorityError,
  schemeDirectoryDecider,
  SharedBicError,
  SnapshotRuleError,
  type SchemeDirectoryLoaded,
} from './decider.js';

const now = '2026-11-25T08:00:00.000Z';
const snapshot = (snapshotId: string): SchemeDirectorySnapshot => ({
  snapshotId,
  participants: [
    { authorisationNumber: 'PSDDE-BAFIN-123456', bics: ['DEUTDEFFXXX'], environment: 'L' },
    { authorisationNumber: 'PSDDE-BAFIN-123456', bics: ['DEUTDEFFXXX'], environment: 'T' },
  ],
});
const loaded = (version: number, snapshotId: string): SchemeDirectoryLoaded => ({
  type: 'SchemeDirectoryLoaded',
  data: { version, snapshot: snapshot(snapshotId), loadedAt: now, loadedBy: 'PSDXX-DEV-ADMIN' },
});
const load = (snapshotId: string, expectedVersion?: number) => ({
  type: 'LoadSchemeDirectory' as const,
  snapshot: snapshot(snapshotId),
  now,
  loadedBy: 'PSDXX-DEV-ADMIN',
  ...(expectedVersion !== undefined && { expectedVersion }),
});

const spec = deciderSpec(schemeDirectoryDecider);

describe('scheme directory decider', () => {
  it('given nothing, when a snapshot is loaded, then it is version 1', () => {
    spec
      .given([])
      .when(load('eds-1'))
      .then([loaded(1, 'eds-1')]);
  });

  it('given version 2, when another is loaded, then it replaces it as version 3', () => {
    spec
      .given([loaded(1, 'eds-1'), loaded(2, 'eds-2')])
      .when(load('eds-3', 2))
      .then([loaded(3, 'eds-3')]);
  });

  it('given version 2, when a load expects version 1, then it is refused', () => {
    spec
      .given([loaded(1, 'eds-1'), loaded(2, 'eds-2')])
      .when(load('eds-3', 1))
      .thenThrows(LoadVersionMismatchError);
  });

  it('given a directory, when the seed expects none (version 0), then it is refused', () => {
    spec
      .given([loaded(1, 'eds-1')])
      .when(load('seed', 0))
      .thenThrows(LoadVersionMismatchError);
  });

  it('when one participant appears twice for one environment, then the snapshot is refused', () => {
    const twice = snapshot('eds-x');
    twice.participants.push({ ...twice.participants[0]! });
    spec
      .given([])
      .when({ ...load('eds-x'), snapshot: twice })
      .thenThrows(DuplicateParticipantError);
  });

  const endpoint = (priority: number) => ({
    uri: `https://vop${priority}.bank.example/vop/v1`,
    priority,
    apiVersion: '1.1.1',
  });
  const refusal = (error: unknown) => {
    assert.ok(error instanceof SnapshotRuleError);
    return { name: error.name, field: error.field, message: error.message };
  };

  it('when a participant lists two endpoints of one priority, then the snapshot is refused naming the second', () => {
    const snapshot: SchemeDirectorySnapshot = {
      snapshotId: 'eds-p',
      participants: [
        { authorisationNumber: 'PSDDE-BAFIN-1', bics: ['BYLADEMMXXX'], environment: 'T' },
        {
          authorisationNumber: 'PSDDE-BAFIN-2',
          bics: ['DEUTDEFFXXX'],
          environment: 'T',
          roles: ['responding'],
          endpoints: [endpoint(1), endpoint(2), endpoint(1)],
        },
      ],
    };
    assert.throws(
      () => schemeDirectoryDecider.decide({ ...load('eds-p'), snapshot }, { version: 0 }),
      (error) => {
        assert.ok(error instanceof DuplicatePriorityError);
        assert.deepEqual(refusal(error), {
          name: 'DuplicatePriorityError',
          field: 'participants[1].endpoints[2].priority',
          message: 'Participant PSDDE-BAFIN-2 has two endpoints of priority 1; give each its own',
        });
        return true;
      },
    );
  });

  it('when two participants of one environment hold one BIC (8 or 11 characters), then it is refused naming both', () => {
    const snapshot: SchemeDirectorySnapshot = {
      snapshotId: 'eds-b',
      participants: [
        { authorisationNumber: 'PSDDE-BAFIN-1', bics: ['DEUTDEFFXXX'], environment: 'T' },
        { authorisationNumber: 'PSDDE-BAFIN-1', bics: ['DEUTDEFFXXX'], environment: 'L' },
        {
          authorisationNumber: 'PSDDE-BAFIN-2',
          bics: ['BYLADEMMXXX', 'DEUTDEFF'],
          environment: 'T',
        },
      ],
    };
    assert.throws(
      () => schemeDirectoryDecider.decide({ ...load('eds-b'), snapshot }, { version: 0 }),
      (error) => {
        assert.ok(error instanceof SharedBicError);
        assert.equal(refusal(error).field, 'participants[2].bics[1]');
        assert.match(error.message, /DEUTDEFF is held by both PSDDE-BAFIN-1 and PSDDE-BAFIN-2/);
        return true;
      },
    );
  });

  it('when one participant appears twice, the error names the second one', () => {
    const twice = snapshot('eds-x');
    twice.participants.push({ ...twice.participants[0]! });
    assert.throws(
      () => schemeDirectoryDecider.decide({ ...load('eds-x'), snapshot: twice }, { version: 0 }),
      (error) => refusal(error).field === 'participants[2].authorisationNumber',
    );
  });

  it('given nothing, when a responding participant without endpoints and one with both roles load, then it is version 1', () => {
    const snapshot: SchemeDirectorySnapshot = {
      snapshotId: 'eds-r',
      participants: [
        {
          authorisationNumber: 'PSDDE-BAFIN-1',
          bics: ['DEUTDEFFXXX'],
          environment: 'T',
          roles: ['responding'],
        },
        {
          authorisationNumber: 'PSDDE-BAFIN-2',
          bics: ['BYLADEMMXXX'],
          environment: 'T',
          roles: ['requesting', 'responding'],
          endpoints: [endpoint(2), endpoint(1)],
        },
      ],
    };
    spec
      .given([])
      .when({ ...load('eds-r'), snapshot })
      .then([
        {
          type: 'SchemeDirectoryLoaded',
          data: { version: 1, snapshot, loadedAt: now, loadedBy: 'PSDXX-DEV-ADMIN' },
        },
      ]);
  });
});
