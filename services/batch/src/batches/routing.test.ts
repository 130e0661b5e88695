import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeIntegrationEvent, topicNames } from '@vop/contracts';

const topics = topicNames('ns.');
const request = {
  verificationId: '5b7e3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a',
  family: 'batch',
  iban: 'DE89370400440532013000',
  name: 'sealed',
  participant: 'PSDDE-BAFIN-123456',
  requestedAt: '2026-03-01T09:00:00.000Z',
};

describe('where batch events travel (packages/contracts routeIntegrationEvent)', () => {
  it('a batch entry goes to the batch topic, keyed by IBAN like single checks (same account shard)', () => {
    const batch = { batchId: 'b-1', entryId: 'e-1' };
    assert.deepEqual(
      routeIntegrationEvent(topics, { type: 'VerificationRequested', data: { ...request, batch } }),
      { topic: 'ns.vop.verification-requested.batch.v1', key: request.iban },
    );
    assert.deepEqual(
      routeIntegrationEvent(topics, {
        type: 'VerificationRequested',
        data: { ...request, family: 'scheme' },
      }),
      { topic: 'ns.vop.verification-requested.v1', key: request.iban },
    );
  });

  it('a request left to the requesting side (marked routing), a batch entry or a single check, goes to the routing topic, keyed by IBAN; once decided, to its twin', () => {
    const batch = { batchId: 'b-1', entryId: 'e-1' };
    for (const data of [
      { ...request, batch },
      { ...request, family: 'request-result' },
    ])
      assert.deepEqual(
        routeIntegrationEvent(topics, {
          type: 'VerificationRequested',
          data: { ...data, routing: 'payee-bank' },
        }),
        { topic: 'ns.vop.verification-requested.routing.v1', key: request.iban },
      );
    assert.deepEqual(
      routeIntegrationEvent(topics, {
        type: 'VerificationRequested',
        data: { ...request, batch, routing: 'payee-bank', decidedAtRecording: true },
      }),
      { topic: 'ns.vop.verification-requested.batch.decided.v1', key: request.iban },
    );
  });

  it("a batch entry's end (completion or failure) goes to the batch completions topic, keyed by verification id; a single check's stays on the completions topic", () => {
    const ended = {
      verificationId: request.verificationId,
      participant: request.participant,
      family: 'batch',
      batch: { batchId: 'b-1', entryId: 'e-1' },
    };
    const key = request.verificationId;
    const completed = {
      ...ended,
      outcome: 'MTCH',
      score: 1,
      reasons: [],
      completedAt: request.requestedAt,
    };
    const failed = { ...ended, reason: 'ERROR', failedAt: request.requestedAt };
    assert.deepEqual(
      routeIntegrationEvent(topics, { type: 'VerificationCompleted', data: completed }),
      {
        topic: 'ns.vop.verification-completed.batch.v1',
        key,
      },
    );
    assert.deepEqual(routeIntegrationEvent(topics, { type: 'VerificationFailed', data: failed }), {
      topic: 'ns.vop.verification-completed.batch.v1',
      key,
    });
    const { batch: _batch, ...single } = completed;
    assert.deepEqual(
      routeIntegrationEvent(topics, {
        type: 'VerificationCompleted',
        data: { ...single, family: 'scheme' },
      }),
      { topic: 'ns.vop.verification-completed.v1', key },
    );
  });

  it('a request decided where it was recorded, and its end, go to the `.decided` twins of their topics, under the same keys', () => {
    const decided = { decidedAtRecording: true };
    const batch = { batchId: 'b-1', entryId: 'e-1' };
    const end = {
      verificationId: request.verificationId,
      participant: request.participant,
      outcome: 'MTCH',
      score: 1,
      reasons: [],
      completedAt: request.requestedAt,
    };
    const failed = {
      verificationId: request.verificationId,
      participant: request.participant,
      reason: 'ERROR',
      failedAt: request.requestedAt,
    };
    const single = { family: 'scheme', ...decided };
    const entry = { family: 'batch', batch, ...decided };
    const cases: Array<[type: string, data: object, topic: string, key: string]> = [
      ['VerificationRequested', { ...request, ...single }, 'requested.decided', request.iban],
      ['VerificationRequested', { ...request, ...entry }, 'requested.batch.decided', request.iban],
      ['VerificationCompleted', { ...end, ...single }, 'completed.decided', end.verificationId],
      ['VerificationFailed', { ...failed, ...single }, 'completed.decided', end.verificationId],
      [
        'VerificationCompleted',
        { ...end, ...entry },
        'completed.batch.decided',
        end.verificationId,
      ],
      [
        'VerificationFailed',
        { ...failed, ...entry },
        'completed.batch.decided',
        end.verificationId,
      ],
    ];
    for (const [type, data, topic, key] of cases)
      assert.deepEqual(routeIntegrationEvent(topics, { type, data }), {
        topic: `ns.vop.verification-${topic}.v1`,
        key,
      });
  });

  it('an account event goes to the account events topic keyed by its IBAN; an event without what it is routed by is refused, not published under no key', () => {
    const account = {
      accountId: '0b5f3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a',
      iban: request.iban,
      name: 'sealed',
      status: 'active',
      createdAt: request.requestedAt,
    };
    assert.deepEqual(routeIntegrationEvent(topics, { type: 'AccountOpened', data: account }), {
      topic: 'ns.vop.account-events.v1',
      key: request.iban,
    });
    const { iban: _iban, ...withoutIban } = account;
    const { iban: _requestIban, ...requestWithoutIban } = request;
    const refused: Array<{ type: string; data: unknown }> = [
      { type: 'AccountOpened', data: withoutIban },
      { type: 'AccountDeleted', data: { ...withoutIban, iban: 42 } },
      { type: 'VerificationRequested', data: requestWithoutIban },
      { type: 'VerificationRequested', data: { ...request, routing: 'elsewhere' } },
      { type: 'VerificationCompleted', data: { verificationId: 'not-a-uuid', outcome: 'MTCH' } },
      { type: 'VerificationFailed', data: {} },
      { type: 'BatchCompleted', data: { participant: request.participant } },
      { type: 'AccountUpdated', data: null },
    ];
    for (const event of refused)
      assert.throws(() => routeIntegrationEvent(topics, event), Error, event.type);
  });

  it('BatchCompleted goes to the batch-events topic keyed by batch id; the internal events stay home', () => {
    const completed = {
      batchId: 'b-1',
      participant: 'PSDDE-BAFIN-123456',
      status: 'COMPLETED',
      total: 1,
      successful: 1,
      failed: 0,
      submittedAt: '2026-03-01T09:00:00.000Z',
      completedAt: '2026-03-01T09:00:01.000Z',
    };
    assert.deepEqual(routeIntegrationEvent(topics, { type: 'BatchCompleted', data: completed }), {
      topic: 'ns.vop.batch-events.v1',
      key: 'b-1',
    });
    assert.equal(routeIntegrationEvent(topics, { type: 'BatchSubmitted', data: {} }), null);
    assert.equal(routeIntegrationEvent(topics, { type: 'BatchEntriesJudged', data: {} }), null);
  });
});
