import { describe, it } from 'node:test';
import type { SchemeDirectorySnapshot } from '@vop/contracts';
import { deciderSpec } from '@vop/testing';
import {
  DirectoryVersionMismatchError,
  DuplicateParticipantError,
  schemeDirectoryDecider,
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
      .thenThrows(DirectoryVersionMismatchError);
  });

  it('given a directory, when the seed expects none (version 0), then it is refused', () => {
    spec
      .given([loaded(1, 'eds-1')])
      .when(load('seed', 0))
      .thenThrows(DirectoryVersionMismatchError);
  });

  it('when one participant appears twice for one environment, then the snapshot is refused', () => {
    const twice = snapshot('eds-x');
    twice.participants.push({ ...twice.participants[0]! });
    spec
      .given([])
      .when({ ...load('eds-x'), snapshot: twice })
      .thenThrows(DuplicateParticipantError);
  });
});
