import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, startReceiver, type Harness, type Receiver } from '../spec/harness.js';

const SECRET = 'a-receiver-secret-0123456789';

describe('POST/GET/DELETE /webhooks: a participant’s registrations', () => {
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

  it('registers: 201 with the stored record, never the secret; listed, read and deleted by its owner only', async () => {
    const created = await harness.api('POST', '/webhooks', 'PSP-A', {
      url: receiver.url,
      events: ['verification.success', 'batch.completed'],
      secret: SECRET,
    });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), [
      'created_at',
      'enabled',
      'events',
      'id',
      'url',
    ]);
    assert.equal(created.body.url, receiver.url);
    assert.equal(created.body.enabled, true);
    assert.deepEqual(created.body.events, ['verification.success', 'batch.completed']);
    assert.doesNotMatch(JSON.stringify(created.body), new RegExp(SECRET));
    const id = created.body.id as string;

    const listed = await harness.api('GET', '/webhooks', 'PSP-A');
    assert.deepEqual(listed.body, { webhooks: [created.body], total: 1 });
    assert.deepEqual((await harness.api('GET', `/webhooks/${id}`, 'PSP-A')).body, created.body);

    // Another participant neither sees nor deletes it.
    assert.deepEqual((await harness.api('GET', '/webhooks', 'PSP-B')).body, {
      webhooks: [],
      total: 0,
    });
    const foreign = await harness.api('GET', `/webhooks/${id}`, 'PSP-B');
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'WEBHOOK_NOT_FOUND');
    assert.equal((await harness.api('DELETE', `/webhooks/${id}`, 'PSP-B')).status, 404);

    assert.equal((await harness.api('DELETE', `/webhooks/${id}`, 'PSP-A')).status, 204);
    assert.equal((await harness.api('GET', `/webhooks/${id}`, 'PSP-A')).status, 404);
    assert.equal((await harness.api('DELETE', `/webhooks/${id}`, 'PSP-A')).status, 404);
  });

  it('refuses unknown event names, a non-URL and a missing secret with 400 naming the field (nested format)', async () => {
    const cases: [unknown, string][] = [
      [{ url: receiver.url, events: ['verification.maybe'], secret: SECRET }, 'events.0'],
      [{ url: receiver.url, events: [], secret: SECRET }, 'events'],
      [{ url: 'not a url', events: ['verification.success'], secret: SECRET }, 'url'],
      [{ url: 'ftp://x.example/h', events: ['verification.success'], secret: SECRET }, 'url'],
      [{ url: receiver.url, events: ['verification.success'] }, 'secret'],
      [{ url: receiver.url, events: ['verification.success'], secret: 'short' }, 'secret'],
      [{ events: ['verification.success'], secret: SECRET }, 'url'],
    ];
    for (const [body, field] of cases) {
      const response = await harness.api('POST', '/webhooks', 'PSP-A', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body.error.code, 'INVALID_REQUEST');
      assert.equal(response.body.error.details.field, field, JSON.stringify(body));
    }
  });

  it('refuses private, link-local and metadata receivers the allow-list does not name', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.8/hook',
      'http://[fe80::1]/hook',
      'http://192.168.0.10/hook',
      // IPv6 forms that carry an IPv4 address (issue 39), even one the allow-list holds (127/8).
      'http://[::127.0.0.1]/hook',
      'http://[::a9fe:a9fe]/hook',
      'http://[::ffff:a9fe:a9fe]/hook',
      'http://[::ffff:0:7f00:1]/hook',
      'http://[64:ff9b::a9fe:a9fe]/hook',
      'http://[64:ff9b:1::a9fe:a9fe]/hook',
      'http://[2002:7f00:1::]/hook',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    ]) {
      const response = await harness.api('POST', '/webhooks', 'PSP-A', {
        url,
        events: ['verification.success'],
        secret: SECRET,
      });
      assert.equal(response.status, 400, url);
      assert.equal(response.body.error.details.field, 'url');
      assert.equal(response.body.error.details.reason, 'ADDRESS_NOT_ALLOWED');
    }
  });

  it('a live deployment takes https:// receivers only', async () => {
    const live = await startHarness({ httpsOnly: true });
    try {
      const response = await live.api('POST', '/webhooks', 'PSP-A', {
        url: receiver.url,
        events: ['verification.success'],
        secret: SECRET,
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.details.reason, 'HTTPS_REQUIRED');
    } finally {
      await live.close();
    }
  });
});
