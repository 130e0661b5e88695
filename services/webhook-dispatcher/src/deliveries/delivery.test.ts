import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { topicNames } from '@vop/contracts';
import { eventually } from '@vop/testing';
import { Webhook } from 'standardwebhooks';
import { startHarness, startReceiver, type Harness, type Receiver } from '../spec/harness.js';

const SECRET = 'a-receiver-secret-0123456789';
/** The receiver's side: the standardwebhooks package as any receiver would use it. */
const verifier = new Webhook(new TextEncoder().encode(SECRET), { format: 'raw' });
const verify = (request: { headers: Record<string, unknown>; body: string }) =>
  verifier.verify(request.body, request.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };

describe('webhook deliveries to real receivers on 127.0.0.1', () => {
  let harness: Harness;
  const receivers: Receiver[] = [];
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await harness.close();
  });

  const register = (participant: string, receiver: Receiver, events?: string[]) =>
    harness.register(participant, receiver.url, events, SECRET);
  const deliveriesOf = async (participant: string, webhookId: string) =>
    (await harness.api('GET', `/webhooks/${webhookId}/deliveries`, participant)).body
      .deliveries as any[];

  it('signs each delivery (Standard Webhooks, checked by the standardwebhooks package) and sends only the registering participant’s events, without names', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    await register('PSP-SIGN', receiver);
    const mine = await harness.complete('PSP-SIGN', {
      batch: { batchId: 'batch-1', entryId: 'entry-9' },
    });
    await harness.complete('PSP-OTHER');
    await eventually(async () => (receiver.received.length >= 1 ? true : undefined));
    await harness.bus.settled();
    assert.equal(receiver.received.length, 1);
    const request = receiver.received[0]!;
    const payload = verify(request);
    assert.equal(payload.type, 'verification.success');
    assert.deepEqual(
      { ...payload.data, completed_at: undefined },
      {
        request_id: mine,
        family: 'scheme',
        outcome: 'MTCH',
        batch_id: 'batch-1',
        entry_id: 'entry-9',
        completed_at: undefined,
      },
    );
    assert.doesNotMatch(request.body, /Anna|Schmidt/);
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.throws(() =>
      verifier.verify(request.body.replace('MTCH', 'NMTC'), request.headers as never),
    );
  });

  it('sends a failure as a signed verification.failure, and only the first end of a verification', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    await register('PSP-ENDS', receiver, ['verification.success', 'verification.failure']);
    const failedId = '0f0f0f0f-1111-4222-8333-444444444444';
    const failure = (verificationId: string) => ({
      verificationId,
      family: 'request-result',
      reason: 'TIMEOUT',
      participant: 'PSP-ENDS',
      failedAt: '2026-01-01T00:20:00.000Z',
    });
    await harness.publish(
      'verificationCompleted',
      failedId,
      'VerificationFailed',
      failure(failedId),
    );
    // The late completion of the failed one, then a completed one whose failure comes late.
    await harness.complete('PSP-ENDS', { verificationId: failedId });
    const completedId = await harness.complete('PSP-ENDS');
    await harness.publish(
      'verificationCompleted',
      completedId,
      'VerificationFailed',
      failure(completedId),
    );
    await eventually(async () => (receiver.received.length >= 2 ? true : undefined));
    await harness.bus.settled();
    const payloads = receiver.received.map(verify);
    assert.deepEqual(
      payloads.map(({ type, data }) => [type, data.request_id]).sort(),
      [
        ['verification.failure', failedId],
        ['verification.success', completedId],
      ].sort(),
    );
    assert.deepEqual(payloads.find(({ type }) => type === 'verification.failure')?.data, {
      request_id: failedId,
      family: 'request-result',
      reason: 'TIMEOUT',
      completed_at: '2026-01-01T00:20:00.000Z',
    });
  });

  it('retries with the same webhook-id, dead-letters after the last attempt (list and topic), and redelivers on request', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => ({ status: healthy ? 200 : 500 }));
    receivers.push(receiver);
    const deadLetters: string[] = [];
    const subscription = await harness.bus.subscribe({
      groupId: 'test-dead-letters',
      topics: [topicNames('').webhookDeadLetters],
      handler: async (message) => void deadLetters.push(message.value),
    });
    const webhookId = await register('PSP-RETRY', receiver);
    await harness.complete('PSP-RETRY');
    const [dead] = await eventually(async () => {
      const deliveries = await deliveriesOf('PSP-RETRY', webhookId);
      return deliveries[0]?.status === 'dead_lettered' ? deliveries : undefined;
    });
    assert.equal(receiver.received.length, 4, 'one attempt and three retries');
    const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
    assert.deepEqual([...ids], [dead.id]);
    for (const request of receiver.received) verify(request);
    assert.deepEqual(
      dead.attempts.map((attempt: any) => [attempt.status_code, attempt.outcome]),
      [
        [500, 'http_error'],
        [500, 'http_error'],
        [500, 'http_error'],
        [500, 'http_error'],
      ],
    );
    assert.equal(dead.attempts.filter((a: any) => a.next_retry_at !== null).length, 3);
    assert.ok(dead.attempts.every((a: any) => Number.isInteger(a.latency_ms)));

    const listed = await harness.api('GET', '/webhooks/dead-letters', 'PSP-RETRY');
    assert.deepEqual(
      listed.body.deliveries.map((delivery: any) => delivery.id),
      [dead.id],
    );
    assert.equal((await harness.api('GET', '/webhooks/dead-letters', 'PSP-SIGN')).body.total, 0);
    await eventually(async () => (deadLetters.length === 1 ? true : undefined));
    const letter = JSON.parse(deadLetters[0]!);
    assert.equal(letter.type, 'WebhookDeliveryDeadLettered');
    assert.equal(letter.data.deliveryId, dead.id);
    assert.equal(letter.data.attempts, 4);
    await subscription.close();

    healthy = true;
    const redelivered = await harness.api(
      'POST',
      `/webhooks/${webhookId}/deliveries/${dead.id}/redeliver`,
      'PSP-RETRY',
    );
    assert.equal(redelivered.status, 202);
    await eventually(async () => {
      const deliveries = await deliveriesOf('PSP-RETRY', webhookId);
      return deliveries[0]?.status === 'delivered' ? true : undefined;
    });
    assert.equal(receiver.received.length, 5);
    assert.equal(receiver.received[4]!.headers['webhook-id'], dead.id);
    const foreign = await harness.api(
      'POST',
      `/webhooks/${webhookId}/deliveries/${dead.id}/redeliver`,
      'PSP-SIGN',
    );
    assert.equal(foreign.status, 404);
  });

  it('pages the dead letters by cursor, newest first, with the total of them all', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    receivers.push(receiver);
    const webhookId = await register('PSP-PAGED', receiver);
    for (let index = 0; index < 3; index++) await harness.complete('PSP-PAGED');
    await eventually(async () => {
      const deliveries = await deliveriesOf('PSP-PAGED', webhookId);
      return deliveries.length === 3 && deliveries.every((d) => d.status === 'dead_lettered')
        ? true
        : undefined;
    });
    const first = await harness.api('GET', '/webhooks/dead-letters?limit=2', 'PSP-PAGED');
    assert.equal(first.status, 200);
    assert.equal(first.body.total, 3);
    assert.equal(first.body.deliveries.length, 2);
    assert.equal(typeof first.body.nextCursor, 'string');
    const second = await harness.api(
      'GET',
      `/webhooks/dead-letters?limit=2&cursor=${first.body.nextCursor}`,
      'PSP-PAGED',
    );
    assert.equal(second.body.total, 3);
    assert.equal(second.body.deliveries.length, 1);
    assert.equal(second.body.nextCursor, null);
    const paged = [...first.body.deliveries, ...second.body.deliveries];
    const all = (await harness.api('GET', '/webhooks/dead-letters', 'PSP-PAGED')).body;
    assert.equal(all.nextCursor, null);
    assert.deepEqual(
      paged.map((delivery: any) => delivery.id),
      all.deliveries.map((delivery: any) => delivery.id),
    );
    assert.equal(new Set(paged.map((delivery: any) => delivery.id)).size, 3);
    const invalid = await harness.api('GET', '/webhooks/dead-letters?cursor=nope', 'PSP-PAGED');
    assert.equal(invalid.status, 400);
  });

  it('honours Retry-After: the next attempt is scheduled no sooner than it asks', async () => {
    const receiver = await startReceiver((_request, index) =>
      index === 0 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    receivers.push(receiver);
    const webhookId = await register('PSP-AFTER', receiver);
    await harness.complete('PSP-AFTER');
    const [delivery] = await eventually(async () => {
      const deliveries = await deliveriesOf('PSP-AFTER', webhookId);
      return deliveries[0]?.status === 'delivered' ? deliveries : undefined;
    });
    const [first] = delivery.attempts;
    assert.equal(first.status_code, 503);
    const wait = Date.parse(first.next_retry_at) - Date.parse(first.attempted_at);
    assert.ok(wait >= 1000, `scheduled ${wait} ms after, Retry-After asked 1 s`);
  });

  it('410 Gone disables the registration: nothing more is sent to it', async () => {
    const receiver = await startReceiver(() => ({ status: 410 }));
    receivers.push(receiver);
    const webhookId = await register('PSP-GONE', receiver);
    await harness.complete('PSP-GONE');
    await eventually(async () => {
      const record = await harness.api('GET', `/webhooks/${webhookId}`, 'PSP-GONE');
      return record.body.enabled === false ? true : undefined;
    });
    const [delivery] = await deliveriesOf('PSP-GONE', webhookId);
    assert.equal(delivery.status, 'endpoint_gone');
    await harness.complete('PSP-GONE');
    await harness.bus.settled();
    assert.equal(receiver.received.length, 1);
    assert.equal((await deliveriesOf('PSP-GONE', webhookId)).length, 1);
  });

  it('an attempt that outlives its timeout is recorded as a timeout and retried', async () => {
    const receiver = await startReceiver((_request, index) =>
      index === 0
        ? { status: 200, wait: new Promise((resolve) => setTimeout(resolve, 1_500)) }
        : { status: 200 },
    );
    receivers.push(receiver);
    const webhookId = await register('PSP-SLOW', receiver);
    await harness.complete('PSP-SLOW');
    const [delivery] = await eventually(
      async () => {
        const deliveries = await deliveriesOf('PSP-SLOW', webhookId);
        return deliveries[0]?.status === 'delivered' ? deliveries : undefined;
      },
      { timeoutMs: 10_000 },
    );
    assert.deepEqual(
      delivery.attempts.map((attempt: any) => attempt.outcome),
      ['timeout', 'delivered'],
    );
  });

  it('batch.completed goes to registrations that asked for it', async () => {
    const batches = await startReceiver();
    const verifications = await startReceiver();
    receivers.push(batches, verifications);
    await register('PSP-BATCH', batches, ['batch.completed']);
    await register('PSP-BATCH', verifications, ['verification.success']);
    await harness.publish('batchEvents', 'b-77', 'BatchCompleted', {
      batchId: 'b-77',
      participant: 'PSP-BATCH',
      status: 'COMPLETED',
      total: 2,
      successful: 2,
      failed: 0,
      submittedAt: new Date().toISOString(),
      completedAt: new Date().toISOString(),
    });
    await eventually(async () => (batches.received.length === 1 ? true : undefined));
    await harness.bus.settled();
    const payload = verify(batches.received[0]!);
    assert.equal(payload.type, 'batch.completed');
    assert.equal(payload.data.batch_id, 'b-77');
    assert.equal(verifications.received.length, 0);
  });
});
