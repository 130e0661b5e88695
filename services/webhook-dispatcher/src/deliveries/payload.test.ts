import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IntegrationEnvelope } from '@vop/contracts';
import { webhookNoticeFor } from './payload.js';

const envelope = (type: string, data: unknown): IntegrationEnvelope => ({
  eventId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  type,
  version: 1,
  occurredAt: '2026-01-01T00:00:01.000Z',
  correlationId: 'c',
  data,
});
const completion = {
  verificationId: '11111111-2222-4333-8444-555555555555',
  family: 'batch',
  outcome: 'CMTC',
  score: 0.86,
  matchedName: 'Jürgen Groß',
  reasons: ['TYPO'],
  participant: 'PSDDE-BAFIN-123456',
  batch: { batchId: 'b-1', entryId: 'e-7' },
  completedAt: '2026-01-01T00:00:01.000Z',
};

describe('what a webhook carries', () => {
  it('a completion becomes verification.success for its participant, with ids and the outcome only', () => {
    const notice = webhookNoticeFor(envelope('VerificationCompleted', completion));
    assert.deepEqual(notice, {
      participant: 'PSDDE-BAFIN-123456',
      endsVerification: completion.verificationId,
      event: 'verification.success',
      payload: {
        type: 'verification.success',
        timestamp: '2026-01-01T00:00:01.000Z',
        data: {
          request_id: completion.verificationId,
          family: 'batch',
          outcome: 'CMTC',
          batch_id: 'b-1',
          entry_id: 'e-7',
          completed_at: '2026-01-01T00:00:01.000Z',
        },
      },
    });
    assert.doesNotMatch(JSON.stringify(notice), /Jürgen|Groß|score|reasons/);
  });

  it('a failure becomes verification.failure for its participant, with ids and the reason', () => {
    const failure = {
      verificationId: completion.verificationId,
      family: 'batch',
      reason: 'TIMEOUT',
      participant: 'PSDDE-BAFIN-123456',
      batch: { batchId: 'b-1', entryId: 'e-7' },
      failedAt: '2026-01-01T00:20:00.000Z',
    };
    assert.deepEqual(webhookNoticeFor(envelope('VerificationFailed', failure)), {
      participant: 'PSDDE-BAFIN-123456',
      endsVerification: completion.verificationId,
      event: 'verification.failure',
      payload: {
        type: 'verification.failure',
        timestamp: '2026-01-01T00:20:00.000Z',
        data: {
          request_id: completion.verificationId,
          family: 'batch',
          reason: 'TIMEOUT',
          batch_id: 'b-1',
          entry_id: 'e-7',
          completed_at: '2026-01-01T00:20:00.000Z',
        },
      },
    });
    const { participant: _p, ...anonymous } = failure;
    assert.equal(webhookNoticeFor(envelope('VerificationFailed', anonymous)), undefined);
  });

  it('an end decided where it was recorded is that verification’s only end: no first-end rule, the same payload', () => {
    const undecided = webhookNoticeFor(envelope('VerificationCompleted', completion));
    const decided = webhookNoticeFor(
      envelope('VerificationCompleted', { ...completion, decidedAtRecording: true }),
    );
    assert.equal(decided?.endsVerification, undefined);
    const { endsVerification: _e, ...rest } = undecided ?? {};
    assert.deepEqual(decided, rest);
    const failed = {
      verificationId: completion.verificationId,
      family: 'simple',
      reason: 'ERROR',
      participant: 'PSDDE-BAFIN-123456',
      failedAt: '2026-01-01T00:00:01.000Z',
      decidedAtRecording: true,
    };
    const notice = webhookNoticeFor(envelope('VerificationFailed', failed));
    assert.equal(notice?.event, 'verification.failure');
    assert.equal(notice?.endsVerification, undefined);
  });

  it('a completion without a participant is nobody’s: no webhook', () => {
    const { participant: _p, ...anonymous } = completion;
    assert.equal(webhookNoticeFor(envelope('VerificationCompleted', anonymous)), undefined);
  });

  it('a finished batch becomes batch.completed with its counts', () => {
    const notice = webhookNoticeFor(
      envelope('BatchCompleted', {
        batchId: 'b-1',
        participant: 'P1',
        status: 'COMPLETED',
        total: 3,
        successful: 2,
        failed: 1,
        submittedAt: '2026-01-01T00:00:00.000Z',
        completedAt: '2026-01-01T00:00:05.000Z',
      }),
    );
    assert.equal(notice?.event, 'batch.completed');
    assert.equal(notice?.participant, 'P1');
    assert.deepEqual(notice?.payload.data, {
      batch_id: 'b-1',
      status: 'COMPLETED',
      total: 3,
      successful: 2,
      failed: 1,
      submitted_at: '2026-01-01T00:00:00.000Z',
      completed_at: '2026-01-01T00:00:05.000Z',
    });
  });

  it('other events produce nothing', () => {
    assert.equal(webhookNoticeFor(envelope('AccountOpened', {})), undefined);
  });
});
