import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import { startHarness, startReceiver, type Harness, type Receiver } from '../spec/harness.js';

const SECRET = 'a-receiver-secret-0123456789';

describe('webhook faults with real receivers on 127.0.0.1', () => {
  const receivers: Receiver[] = [];
  const harnesses: Harness[] = [];
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    for (const harness of harnesses) await harness.close();
  });

  const register = (harness: Harness, participant: string, url: string) =>
    harness.register(participant, url, undefined, SECRET);

  it('a receiver down for a while, then back: every event delivered, none lost, duplicates counted', async (t) => {
    const harness = await startHarness({ retryDelaysMs: [50, 100, 200, 400, 800, 1_600, 3_200] });
    harnesses.push(harness);
    const first = await startReceiver();
    const { port } = first;
    await first.close();
    const webhookId = await register(harness, 'PSP-DOWN', `http://127.0.0.1:${port}/hook`);
    const EVENTS = 40;
    const ids = new Set<string>();
    for (let index = 0; index < EVENTS; index++) ids.add(await harness.complete('PSP-DOWN'));
    // Wait until the dispatcher has really met the closed port, then bring the receiver back.
    await eventually(async () => {
      const { body } = await harness.api('GET', `/webhooks/${webhookId}/deliveries`, 'PSP-DOWN');
      return body.deliveries.length === EVENTS &&
        body.deliveries.every((delivery: any) => delivery.attempts.length >= 1)
        ? true
        : undefined;
    });
    const back = await startReceiver(undefined, port);
    receivers.push(back);
    await eventually(
      async () => {
        const { body } = await harness.api(
          'GET',
          `/webhooks/${webhookId}/deliveries?status=delivered`,
          'PSP-DOWN',
        );
        return body.total === EVENTS ? true : undefined;
      },
      { timeoutMs: 20_000 },
    );
    const requestIds = back.received.map(
      (request) => (JSON.parse(request.body) as { data: { request_id: string } }).data.request_id,
    );
    assert.deepEqual(new Set(requestIds), ids, 'every event arrived');
    const duplicates = requestIds.length - new Set(requestIds).size;
    t.diagnostic(`received ${requestIds.length} for ${EVENTS} events: ${duplicates} duplicates`);
    const webhookIds = new Set(back.received.map((request) => request.headers['webhook-id']));
    assert.equal(webhookIds.size, EVENTS, 'a duplicate carries the same webhook-id');
  });

  it('a slow receiver holds only its own slots: another receiver of the same events gets all of them first', async () => {
    const harness = await startHarness({ attemptTimeoutMs: 30_000, endpointConcurrency: 2 });
    harnesses.push(harness);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = await startReceiver(() => ({ status: 200, wait: held }));
    const fast = await startReceiver();
    receivers.push(slow, fast);
    const slowId = await register(harness, 'PSP-MIXED', slow.url);
    await register(harness, 'PSP-MIXED', fast.url);
    const EVENTS = 20;
    for (let index = 0; index < EVENTS; index++) await harness.complete('PSP-MIXED');
    await eventually(async () => (fast.received.length === EVENTS ? true : undefined));
    assert.equal(slow.received.length, 2, 'the slow receiver has only its two slots in flight');
    release();
    await eventually(
      async () => {
        const { body } = await harness.api(
          'GET',
          `/webhooks/${slowId}/deliveries?status=delivered`,
          'PSP-MIXED',
        );
        return body.total === EVENTS ? true : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.equal(slow.received.length, EVENTS);
  });
});
