import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normaliseBic, SchemeParticipantIndex } from './adherence.js';

const snapshot = {
  snapshotId: 'eds',
  participants: [
    {
      authorisationNumber: 'PSDDE-BAFIN-123456',
      bics: ['DEUTDEFF', 'DEUTDEFF500'],
      environment: 'L' as const,
    },
    { authorisationNumber: 'PSDFR-ACPR-16488', bics: ['BNPAFRPPXXX'], environment: 'T' as const },
  ],
};

describe('scheme adherence', () => {
  const live = new SchemeParticipantIndex(4, snapshot, 'live');
  const test = new SchemeParticipantIndex(4, snapshot, 'test');

  it('admits a participant of the environment with one of its BICs, 8 or 11 characters', () => {
    assert.equal(live.adherence('PSDDE-BAFIN-123456', 'DEUTDEFFXXX'), 'ADHERENT');
    assert.equal(live.adherence('PSDDE-BAFIN-123456', 'deutdeff500'), 'ADHERENT');
    assert.equal(test.adherence('PSDFR-ACPR-16488', 'BNPAFRPP'), 'ADHERENT');
  });

  it('is CLIENT_INCONSISTENT when the BIC is not the participant’s, CLIENT_INVALID when the participant is not of the environment', () => {
    assert.equal(live.adherence('PSDDE-BAFIN-123456', 'BNPAFRPPXXX'), 'CLIENT_INCONSISTENT');
    assert.equal(live.adherence('PSDDE-BAFIN-123456', 'DEUTDEFF501'), 'CLIENT_INCONSISTENT');
    assert.equal(live.adherence('PSDFR-ACPR-16488', 'BNPAFRPPXXX'), 'CLIENT_INVALID');
    assert.equal(test.adherence('PSDDE-BAFIN-123456', 'DEUTDEFFXXX'), 'CLIENT_INVALID');
    assert.equal(live.adherence(undefined, 'DEUTDEFFXXX'), 'CLIENT_INVALID');
    assert.deepEqual([live.size, test.size], [1, 1]);
    assert.equal(live.isParticipant('PSDDE-BAFIN-123456'), true);
    assert.equal(live.isParticipant(undefined), false);
  });

  it('normalises a BIC to 11 characters', () => {
    assert.equal(normaliseBic(' cobadeff '), 'COBADEFFXXX');
    assert.equal(normaliseBic('COBADEFF123'), 'COBADEFF123');
  });
});
