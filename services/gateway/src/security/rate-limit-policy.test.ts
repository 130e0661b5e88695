import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Request, Response } from 'express';
import type { Principal } from '@vop/http';
import { budgetFor, type RateLimitSettings } from './rate-limit-policy.js';

const SETTINGS: RateLimitSettings = {
  environment: 'test',
  livePerMinute: { default: 6000, 'PSDDE-BAFIN-1': 9000 },
  testVerificationsPerMinute: { default: 600, 'PSDDE-BAFIN-1': 1200 },
  testPerHour: 100,
  adminPerMinute: 60,
};

const participant = (participantId: string): Principal => ({
  kind: 'certificate',
  participantId,
  fingerprint: 'ab'.repeat(32),
  admin: false,
});

/** The budget a request on `path` as this principal draws from. */
function budget(settings: RateLimitSettings, method: string, path: string, principal: Principal) {
  const req = { method, originalUrl: path, ip: '127.0.0.1', socket: {} } as Request;
  const res = { locals: { principal } } as unknown as Response;
  return budgetFor(req, res, settings);
}

describe('verification budgets in every environment', () => {
  it('given a test deployment, then a check draws from the participant test budget per minute', () => {
    assert.deepEqual(budget(SETTINGS, 'POST', '/vop/verify', participant('PSDDE-BAFIN-9')), {
      bucket: 'test-verifications',
      subject: 'participant:PSDDE-BAFIN-9',
      points: 600,
      durationSeconds: 60,
    });
    assert.equal(
      budget(SETTINGS, 'POST', '/api/verify', participant('PSDDE-BAFIN-1'))?.points,
      1200,
    );
  });

  it('given a key of the participant, then it draws from the same budget as its certificate', () => {
    const key: Principal = {
      kind: 'api-key',
      keyId: 'k1',
      environment: 'test',
      scopes: ['verify'],
      participantId: 'PSDDE-BAFIN-9',
    };
    assert.equal(
      budget(SETTINGS, 'POST', '/verify', key)?.subject,
      budget(SETTINGS, 'POST', '/vop/verify', participant('PSDDE-BAFIN-9'))?.subject,
    );
  });

  it('given a live deployment, then the live limits apply, not the test ones', () => {
    const live = { ...SETTINGS, environment: 'live' as const };
    assert.deepEqual(budget(live, 'POST', '/vop/verify', participant('PSDDE-BAFIN-1')), {
      bucket: 'live',
      subject: 'participant:PSDDE-BAFIN-1',
      points: 9000,
      durationSeconds: 60,
    });
  });

  it('given a test deployment without test limits, then the live limits hold it: never no budget', () => {
    const { testVerificationsPerMinute: _unset, ...withoutTest } = SETTINGS;
    assert.equal(
      budget(withoutTest, 'POST', '/vop/verify', participant('PSDDE-BAFIN-9'))?.points,
      6000,
    );
  });
});
