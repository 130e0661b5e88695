import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban } from '@vop/testing';
import { Webhook } from 'standardwebhooks';
import { createNameMatcher, type NameMatcher } from '@vop/name-matching';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver.js';
import { accountsKnownToDeciders, runEmbedded, type RunningEmbedded } from './fixtures.js';

const SECRET = 'whsec_' + Buffer.from('an embedded receiver secret!').toString('base64');

describe('embedded default: webhooks through the public edge', () => {
  let embedded: RunningEmbedded;
  let receiver: WebhookReceiver;
  let receiverUrl: string;

  before(async () => {
    embedded = await runEmbedded({ env: { VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
    receiver = await startWebhookReceiver();
    receiverUrl = receiver.url('/hooks');
  });
  after(async () => {
    await receiver.close();
    await embedded.stop();
  });

  it('a participant registers, verifies, and receives a signed verification.success for its own request only', async () => {
    const created = await embedded.client.post('/v1/webhooks', {
      url: receiverUrl,
      events: ['verification.success'],
      secret: SECRET,
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.secret, undefined);
    const listed = await embedded.client.get('/webhooks');
    assert.deepEqual(listed.body.webhooks, [created.body]);
    assert.deepEqual((await embedded.admin.get('/webhooks')).body.webhooks, []);

    const iban = germanIban(31_337);
    const account = await embedded.admin.post('/accounts', { iban, name: 'Greta Hook' });
    assert.equal(account.status, 201);
    // The deciders' copies of the accounts follow the account events: a check sent before they have
    // the account answers NOAP (docs/architecture.md, the account projection's rows in memory).
    await accountsKnownToDeciders(embedded, [iban]);
    // The admin's own verification belongs to another principal: no webhook for it.
    await embedded.admin.post('/verify', { name: 'Greta Hook', iban });
    const receipt = await embedded.client.post('/verify', { name: 'Greta Hook', iban });
    assert.equal(receipt.status, 201);

    const request = await eventually(async () => receiver.received[0], { what: 'a delivery' });
    const payload = new Webhook(SECRET).verify(request.body, request.headers as never) as {
      type: string;
      data: { request_id: string; outcome: string };
    };
    assert.equal(payload.type, 'verification.success');
    assert.equal(payload.data.request_id, receipt.body.request_id);
    assert.equal(payload.data.outcome, 'MTCH');
    assert.doesNotMatch(request.body, /Greta|DE\d{20}/);

    const deliveries = await embedded.client.get(`/webhooks/${created.body.id}/deliveries`);
    assert.equal(deliveries.status, 200);
    await eventually(async () => {
      const log = await embedded.client.get(`/webhooks/${created.body.id}/deliveries`);
      return log.body.deliveries[0]?.status === 'delivered' ? true : undefined;
    });
    assert.equal(receiver.received.length, 1);

    const metrics = await embedded.client.get('/metrics');
    assert.match(metrics.text, /webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} 1/);
    assert.match(metrics.text, /webhook_deliveries_total\{[^}]*status="delivered"[^}]*\} 1/);
    assert.match(metrics.text, /webhook_attempt_duration_seconds_count\{[^}]*\} 1/);
  });

  it('answers errors on /webhooks in the nested format', async () => {
    const invalid = await embedded.client.post('/webhooks', {
      url: receiverUrl,
      events: ['verification.unknown'],
      secret: SECRET,
    });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error.code, 'INVALID_REQUEST');
    assert.equal(invalid.body.error.details.field, 'events.0');
    const missing = await embedded.client.get('/webhooks/6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'WEBHOOK_NOT_FOUND');
  });
});

/** Matching as deployed, except that it cannot decide names containing "Undecidable". */
function matcherFailingOn(word: string): NameMatcher {
  const matcher = createNameMatcher();
  return {
    match(typedName, holder) {
      if (typedName.includes(word)) throw new Error(`cannot decide ${typedName}`);
      return matcher.match(typedName, holder);
    },
  };
}

describe('embedded default: a verification matching cannot decide ends as failed', () => {
  let embedded: RunningEmbedded;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  const secret = 'an-embedded-failure-receiver-secret';

  before(async () => {
    embedded = await runEmbedded({
      env: { VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' },
      matcher: matcherFailingOn('Undecidable'),
    });
    receiver = await startWebhookReceiver();
    receiverUrl = receiver.url('/failures');
  });
  after(async () => {
    await receiver.close();
    await embedded.stop();
  });

  it('delivers a signed verification.failure (reason ERROR), and GET /verify shows it failed', async () => {
    const created = await embedded.client.post('/webhooks', {
      url: receiverUrl,
      events: ['verification.failure'],
      secret,
    });
    assert.equal(created.status, 201, created.text);
    const iban = germanIban(31_338);
    assert.equal(
      (await embedded.admin.post('/accounts', { iban, name: 'Undecidable Payee' })).status,
      201,
    );
    // Only a check against the account calls the matcher (a check probing for it would fail too).
    await accountsKnownToDeciders(embedded, [iban]);
    const receipt = await embedded.client.post('/verify', { name: 'Undecidable Payee', iban });
    assert.equal(receipt.status, 201);
    const requestId = receipt.body.request_id as string;

    const request = await eventually(async () => receiver.received[0], {
      what: 'a failure delivery',
    });
    const verifier = new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
    const payload = verifier.verify(request.body, request.headers as never) as {
      type: string;
      data: Record<string, unknown>;
    };
    assert.equal(payload.type, 'verification.failure');
    assert.deepEqual(
      { ...payload.data, completed_at: undefined },
      { request_id: requestId, family: 'request-result', reason: 'ERROR', completed_at: undefined },
    );
    assert.doesNotMatch(request.body, /Undecidable|DE\d{20}/);

    const result = await eventually(
      async () => {
        const response = await embedded.client.get(`/verify/${requestId}`);
        return response.status === 200 ? response : undefined;
      },
      { what: 'the failed result' },
    );
    assert.equal(result.body.status, 'FAILED');
    assert.equal(result.body.reason, 'ERROR');
  });
});
