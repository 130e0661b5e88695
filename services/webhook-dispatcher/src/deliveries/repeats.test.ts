import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { migrateInbox, markProcessed } from '@vop/outbox';
import { eventually } from '@vop/testing';
import {
  completion,
  startHarness,
  startReceiver,
  type Harness,
  type Receiver,
} from '../spec/harness.js';

/**
 * The dispatcher keeps no processed ids: what it writes for an event is the same written twice. And a
 * check's end that nobody registered a webhook for leaves nothing behind, so its tables do not grow
 * with every check.
 */
describe('webhook deliveries: what is kept, and an event delivered twice', () => {
  let harness: Harness;
  const receivers: Receiver[] = [];
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await harness.close();
  });

  async function register(participant: string, events: string[]): Promise<Receiver> {
    const receiver = await startReceiver();
    receivers.push(receiver);
    await harness.register(participant, receiver.url, events);
    return receiver;
  }
  const count = async (table: string): Promise<number> => {
    const { rows } = await harness.sql.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM webhooks.${table}`,
    );
    return Number(rows[0]?.count);
  };
  const decidedEnd = (participant: string) => completion(participant, { decidedAtRecording: true });
  const timeout = (participant: string, verificationId: string) => ({
    verificationId,
    family: 'request-result',
    reason: 'TIMEOUT',
    participant,
    failedAt: new Date().toISOString(),
  });

  it('given no webhook registered, when checks decided at recording end, then nothing is written for them', async () => {
    const endedBefore = await count('ended_verifications');
    for (let i = 0; i < 20; i += 1) {
      const end = decidedEnd('PSP-NOBODY');
      await harness.publish(
        'verificationCompletedDecided',
        end.verificationId,
        'VerificationCompleted',
        end,
      );
    }
    await harness.bus.settled();
    assert.equal(await count('ended_verifications'), endedBefore);
    assert.equal(await count('deliveries'), 0);
    const { rows } = await harness.sql.query<{ table: string | null }>(
      `SELECT to_regclass('webhooks.processed_events')::text AS table`,
    );
    assert.equal(rows[0]?.table, null, 'no processed ids are kept');
  });

  it('given a registration, when a decided end is delivered twice, then it is queued and sent once', async () => {
    const receiver = await register('PSP-TWICE', ['verification.success']);
    const end = decidedEnd('PSP-TWICE');
    const eventId = await harness.publish(
      'verificationCompletedDecided',
      end.verificationId,
      'VerificationCompleted',
      end,
    );
    await eventually(async () => (receiver.received.length === 1 ? true : undefined));
    await harness.publish(
      'verificationCompletedDecided',
      end.verificationId,
      'VerificationCompleted',
      end,
      eventId,
    );
    await harness.bus.settled();
    const another = decidedEnd('PSP-TWICE');
    await harness.publish(
      'verificationCompletedDecided',
      another.verificationId,
      'VerificationCompleted',
      another,
    );
    await eventually(async () => (receiver.received.length >= 2 ? true : undefined));
    await harness.bus.settled();
    const ids = receiver.received.map(
      (request) => (JSON.parse(request.body) as { data: { request_id: string } }).data.request_id,
    );
    assert.deepEqual(ids.sort(), [end.verificationId, another.verificationId].sort());
    assert.equal(await count('ended_verifications'), 0, 'a decided end is its only end');
  });

  it('given an end that may meet another, when it is delivered twice, then it is sent once', async () => {
    const receiver = await register('PSP-FIRST-TWICE', ['verification.failure']);
    const verificationId = randomUUID();
    const failed = timeout('PSP-FIRST-TWICE', verificationId);
    const eventId = await harness.publish(
      'verificationCompleted',
      verificationId,
      'VerificationFailed',
      failed,
    );
    await eventually(async () => (receiver.received.length === 1 ? true : undefined));
    await harness.publish(
      'verificationCompleted',
      verificationId,
      'VerificationFailed',
      failed,
      eventId,
    );
    await harness.bus.settled();
    assert.equal(receiver.received.length, 1);
  });

  it('given an undecided end with no webhook registered, when one is registered before its late second end, then that second end is not sent', async () => {
    const verificationId = randomUUID();
    await harness.publish(
      'verificationCompleted',
      verificationId,
      'VerificationFailed',
      timeout('PSP-LATE', verificationId),
    );
    await harness.bus.settled();
    const receiver = await register('PSP-LATE', ['verification.success', 'verification.failure']);
    await harness.complete('PSP-LATE', { verificationId });
    const later = await harness.complete('PSP-LATE');
    await eventually(async () => (receiver.received.length >= 1 ? true : undefined));
    await harness.bus.settled();
    const ids = receiver.received.map(
      (request) => (JSON.parse(request.body) as { data: { request_id: string } }).data.request_id,
    );
    assert.deepEqual(
      ids,
      [later],
      'the caller was answered TIMEOUT: the late completion is not its end',
    );
  });

  it('given a batch.completed delivered twice, then it is sent once', async () => {
    const receiver = await register('PSP-BATCH-TWICE', ['batch.completed']);
    const batch = {
      batchId: 'b-twice',
      participant: 'PSP-BATCH-TWICE',
      status: 'COMPLETED',
      total: 1,
      successful: 1,
      failed: 0,
      submittedAt: new Date().toISOString(),
      completedAt: new Date().toISOString(),
    };
    const eventId = await harness.publish('batchEvents', 'b-twice', 'BatchCompleted', batch);
    await eventually(async () => (receiver.received.length === 1 ? true : undefined));
    await harness.publish('batchEvents', 'b-twice', 'BatchCompleted', batch, eventId);
    await harness.bus.settled();
    assert.equal(receiver.received.length, 1);
  });
});

describe('a store an older release wrote', () => {
  it('given the processed ids it kept, when the dispatcher starts on PGlite, then they are dropped', async () => {
    const harness = await startHarness({}, undefined, async (sql) => {
      await migrateInbox(sql, 'webhooks');
      await markProcessed(sql, 'webhooks', 'webhook-deliveries', [randomUUID()]);
    });
    try {
      const { rows } = await harness.sql.query<{ table: string | null }>(
        `SELECT to_regclass('webhooks.processed_events')::text AS table`,
      );
      assert.equal(rows[0]?.table, null);
    } finally {
      await harness.close();
    }
  });
});
