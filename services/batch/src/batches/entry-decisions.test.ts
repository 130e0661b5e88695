import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VerificationRequestedData } from '@vop/contracts';
import type { DecidedEnd } from '@vop/verifications';
import { entryStreams } from './entry-decisions.js';

const entry = (entryId: string, verificationId: string): VerificationRequestedData => ({
  verificationId,
  family: 'batch',
  iban: 'DE89370400440532013000',
  name: 'sealed',
  participant: 'P1',
  batch: { batchId: 'b-1', entryId },
  requestedAt: '2026-03-01T09:00:00.000Z',
});
const held = entry('held', '5b7e3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a');
const unheld = entry('unheld', '6b7e3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a');
const end: DecidedEnd = {
  events: [
    {
      type: 'VerificationCompleted',
      data: {
        verificationId: held.verificationId,
        family: 'batch',
        outcome: 'MTCH',
        score: 1,
        reasons: [],
        completedAt: '2026-03-01T09:00:01.000Z',
      },
    },
  ],
  ends: [],
};

const requestOf = (streams: ReturnType<typeof entryStreams>['streams'], index: number) =>
  streams[index]?.events[0]?.data as VerificationRequestedData;

describe('batch entries: which go to the requesting side', () => {
  it('given entries decided against a copy that sends the unheld to the payee bank, then only the entry left undecided is marked routing', () => {
    const { streams } = entryStreams('b-1', [held, unheld], {
      eventIds: ['e-held', 'e-unheld'],
      ends: new Map([['e-held', end]]),
      undecidedToPayeeBank: true,
    });
    assert.equal(requestOf(streams, 0).routing, undefined);
    assert.equal(requestOf(streams, 0).decidedAtRecording, true);
    assert.equal(requestOf(streams, 1).routing, 'payee-bank');
  });

  it('given a copy still filling (nothing decided, nothing sent to the payee bank), then no entry is marked: matching decides them', () => {
    const { streams } = entryStreams('b-1', [held, unheld], {
      eventIds: ['e-held', 'e-unheld'],
      ends: new Map(),
    });
    assert.equal(requestOf(streams, 0).routing, undefined);
    assert.equal(requestOf(streams, 1).routing, undefined);
  });
});
