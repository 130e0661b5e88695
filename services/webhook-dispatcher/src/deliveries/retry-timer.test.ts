import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import { startHarness, startReceiver, type Harness, type Receiver } from '../spec/harness.js';

describe('a dispatcher whose look at the queue is an hour away', () => {
  let harness: Harness;
  const receivers: Receiver[] = [];
  before(async () => {
    // Only a queued delivery's notification and a retry's own time can bring the attempts.
    harness = await startHarness({ pollIntervalMs: 3_600_000 });
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await harness.close();
  });

  it('given a receiver that fails the first attempt, when a verification completes, then the retry is sent at its time', async () => {
    const receiver = await startReceiver((_request, index) => ({
      status: index === 0 ? 500 : 200,
    }));
    receivers.push(receiver);
    const created = await harness.api('POST', '/webhooks', 'PSP-IDLE', {
      url: receiver.url,
      events: ['verification.success'],
      secret: 'a-receiver-secret-0123456789',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));

    await harness.complete('PSP-IDLE');

    const deliveries = await eventually(
      async () => {
        const listed = await harness.api(
          'GET',
          `/webhooks/${created.body.id}/deliveries`,
          'PSP-IDLE',
        );
        const [delivery] = listed.body.deliveries as { status: string }[];
        return delivery?.status === 'delivered' ? listed.body.deliveries : undefined;
      },
      { what: 'the retry delivered' },
    );
    assert.equal(receiver.received.length, 2, 'the first attempt and its retry');
    assert.equal(deliveries.length, 1);
  });
});
