import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import { Webhook } from 'standardwebhooks';
import { startHarness, startReceiver, type Harness, type Receiver } from '../spec/harness.js';
import { createPersonalData } from '@vop/personal-data';
import { registrationStream } from './command-handler.js';
import { encryptPlainSecrets, secretProtection } from './secret-protection.js';

const SECRET = 'a-secret-kept-encrypted-at-rest';

/** Every place a registration's secret is stored: the read model row and the registration's events. */
async function storedSecrets(harness: Harness, webhookId: string): Promise<string[]> {
  const { rows } = await harness.sql.query<{ secret: string }>(
    'SELECT secret FROM webhooks.registrations WHERE id = $1',
    [webhookId],
  );
  const events = await harness.dispatcher.store.readStream(registrationStream(webhookId));
  return [
    ...rows.map((row) => row.secret),
    ...events.map((event) => (event.data as { secret: string }).secret),
  ];
}

describe('webhook secrets at rest', () => {
  let harness: Harness;
  let receiver: Receiver;
  before(async () => {
    harness = await startHarness();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await harness.close();
  });

  it('stores only the encrypted secret, and still signs with the secret itself', async () => {
    const created = await harness.api('POST', '/webhooks', 'PSP-KEY', {
      url: receiver.url,
      events: ['verification.success'],
      secret: SECRET,
    });
    assert.equal(created.status, 201);
    const stored = await storedSecrets(harness, created.body.id as string);
    assert.equal(stored.length, 2);
    for (const value of stored) {
      assert.notEqual(value, SECRET);
      assert.doesNotMatch(value, new RegExp(SECRET));
      assert.match(value, /^pd1:webhook-secret-/);
    }
    await harness.complete('PSP-KEY');
    const request = await eventually(async () => receiver.received[0]);
    const verifier = new Webhook(new TextEncoder().encode(SECRET), { format: 'raw' });
    assert.doesNotThrow(() => verifier.verify(request.body, request.headers as never));
  });

  it('given a registration stored in plain text before, when the start-up migration runs, then its secret is encrypted everywhere', async () => {
    const webhookId = randomUUID();
    const plain = 'a-secret-stored-before-encryption';
    await harness.dispatcher.store.append(
      registrationStream(webhookId),
      [
        {
          type: 'WebhookRegistered',
          data: {
            webhookId,
            participant: 'PSP-OLD',
            url: receiver.url,
            events: ['verification.success'],
            secret: plain,
            registeredAt: new Date().toISOString(),
          },
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    await harness.sql.query(
      `INSERT INTO webhooks.registrations (id, participant, url, events, secret, enabled, created_at)
       VALUES ($1, 'PSP-OLD', $2, '["verification.success"]', $3, true, now())`,
      [webhookId, receiver.url, plain],
    );
    // What the dispatcher runs at start.
    const protection = secretProtection(createPersonalData(harness.sql).cipher);
    assert.equal(await encryptPlainSecrets(harness.dispatcher.store, protection), 1);
    assert.equal(await encryptPlainSecrets(harness.dispatcher.store, protection), 0);
    for (const value of await storedSecrets(harness, webhookId)) {
      assert.notEqual(value, plain);
      assert.match(value, /^pd1:webhook-secret-/);
    }
    const before = receiver.received.length;
    await harness.complete('PSP-OLD');
    const request = await eventually(async () => receiver.received[before]);
    const verifier = new Webhook(new TextEncoder().encode(plain), { format: 'raw' });
    assert.doesNotThrow(() => verifier.verify(request.body, request.headers as never));
  });
});
