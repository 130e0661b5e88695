import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import { startHarness, startReceiver, type Harness, type Receiver } from '../spec/harness.js';

/**
 * A dispatcher whose look at the queue is an hour away: only a queued delivery's notification and a
 * retry's own time can bring the attempts.
 */
async function retrySentAtItsTime(harness: Harness, receivers: Receiver[], participant: string) {
  const receiver = await startReceiver((_request, index) => ({
    status: index === 0 ? 500 : 200,
  }));
  receivers.push(receiver);
  const webhookId = await harness.register(participant, receiver.url);

  await harness.complete(participant);

  const deliveries = await eventually(
    async () => {
      const listed = await harness.api('GET', `/webhooks/${webhookId}/deliveries`, participant);
      const [delivery] = listed.body.deliveries as { status: string }[];
      return delivery?.status === 'delivered' ? listed.body.deliveries : undefined;
    },
    { what: 'the retry delivered' },
  );
  assert.equal(receiver.received.length, 2, 'the first attempt and its retry');
  assert.equal(deliveries.length, 1);
}

describe('a dispatcher whose look at the queue is an hour away', () => {
  const harnesses: Harness[] = [];
  const receivers: Receiver[] = [];
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    for (const harness of harnesses) await harness.close();
  });

  it('given a receiver that fails the first attempt, when a verification completes, then the retry is sent at its time', async () => {
    const harness = await startHarness({ pollIntervalMs: 3_600_000 });
    harnesses.push(harness);
    await retrySentAtItsTime(harness, receivers, 'PSP-IDLE');
  });

  it('given timers that fire before the retry is due by the clock (a loaded event loop), then the retry is still sent', async () => {
    // The clock 200 ms behind the timers: each retry's timer fires before the retry is due by it.
    const harness = await startHarness(
      { pollIntervalMs: 3_600_000 },
      () => new Date(Date.now() - 200),
    );
    harnesses.push(harness);
    await retrySentAtItsTime(harness, receivers, 'PSP-EARLY');
  });
});
