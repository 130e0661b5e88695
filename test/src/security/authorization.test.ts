import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban, httpsClient, type HttpsClient } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from '../embedded/fixtures.js';

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

describe('authorization over mutual TLS', () => {
  let embedded: RunningEmbedded;
  /** Trusts the server but presents no client certificate. */
  let anonymous: HttpsClient;
  let verifyKey: string;
  let accountsKey: string;
  let ibanCounter = 900_000;
  const freshIban = (): string => germanIban(ibanCounter++);

  before(async () => {
    embedded = await runEmbedded();
    anonymous = httpsClient({
      baseUrl: embedded.service.url,
      caPem: await readFile(embedded.service.pki.caPath, 'utf8'),
    });
    const issue = async (scopes: string[]): Promise<string> => {
      const issued = await embedded.admin.post('/admin/api-keys', {
        participantId: 'PSDDE-BAFIN-123456',
        scopes,
      });
      assert.equal(issued.status, 201, issued.text);
      return issued.body.secret as string;
    };
    verifyKey = await issue(['verify']);
    accountsKey = await issue(['accounts']);
  });
  after(async () => {
    anonymous.close();
    await embedded.stop();
  });

  describe('authentication is mandatory', () => {
    it('answers 401 in each path format to a caller without any credential', async () => {
      const flat = await anonymous.get(`/verify/${randomUUID()}`);
      assert.equal(flat.status, 401);
      assert.equal(flat.body.error, 'UNAUTHORIZED');

      const nested = await anonymous.get(`/api/accounts/${randomUUID()}`);
      assert.equal(nested.status, 401);
      assert.equal(nested.body.error.code, 'UNAUTHORIZED');

      const created = await anonymous.post('/accounts', {
        iban: freshIban(),
        name: 'Nobody Allowed',
      });
      assert.equal(created.status, 401);
      assert.equal(created.body.error.code, 'UNAUTHORIZED');

      const scheme = await anonymous.post('/vop/verify', schemeRequest('Anyone', freshIban()));
      assert.equal(scheme.status, 401);
      assert.equal(scheme.body.error.code, 'VOP_002');
    });

    it('keeps the ops probes open', async () => {
      for (const path of ['/livez', '/readyz', '/health']) {
        assert.equal((await anonymous.get(path)).status, 200, path);
      }
    });

    it('serves /metrics on the edge only over mutual TLS: a client certificate, never a key alone', async () => {
      const withoutCertificate = await anonymous.get('/metrics');
      assert.equal(withoutCertificate.status, 401);
      assert.equal(withoutCertificate.body.error.code, 'UNAUTHORIZED');
      const keyOnly = await anonymous.get('/metrics', { headers: bearer(verifyKey) });
      assert.equal(keyOnly.status, 401);
      const scraped = await embedded.client.get('/metrics');
      assert.equal(scraped.status, 200);
      assert.match(scraped.text, /^# HELP /m);
    });

    it('accepts a verify key without a certificate on the /verify and /api families', async () => {
      assert.equal(
        (await anonymous.get(`/verify/${randomUUID()}`, { headers: bearer(verifyKey) })).status,
        404,
      );
      assert.equal(
        (await anonymous.get(`/api/verify/${randomUUID()}`, { headers: bearer(verifyKey) })).status,
        404,
      );
    });
  });

  describe("account records are the bank's own data", () => {
    it('refuses the participant certificate with 403 ACCESS_DENIED (nested) on every account-record path', async () => {
      const { body } = await embedded.admin.post('/accounts', {
        iban: freshIban(),
        name: 'Guarded Holder',
      });
      const id = body.id as string;
      const attempts = [
        await embedded.client.post('/accounts', { iban: freshIban(), name: 'Intruding Holder' }),
        await embedded.client.get(`/api/accounts/${id}`),
        await embedded.client.put(`/api/accounts/${id}`, { status: 'closed' }),
        await embedded.client.delete(`/api/accounts/${id}`),
        await embedded.client.get(`/v1/api/accounts/${id}`),
      ];
      for (const response of attempts) {
        assert.equal(response.status, 403, response.text);
        assert.equal(response.body.error.code, 'ACCESS_DENIED');
      }
      // Nothing changed: the admin still reads the open account.
      assert.equal((await embedded.admin.get(`/api/accounts/${id}`)).status, 200);
    });

    it('refuses a verify-only key with 403 and lets a key with the accounts scope read, update and delete', async () => {
      const { body } = await embedded.admin.post('/accounts', {
        iban: freshIban(),
        name: 'Keyed Holder',
      });
      const id = body.id as string;

      const denied = await anonymous.put(
        `/api/accounts/${id}`,
        { status: 'closed' },
        { headers: bearer(verifyKey) },
      );
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'ACCESS_DENIED');

      assert.equal(
        (await anonymous.get(`/api/accounts/${id}`, { headers: bearer(accountsKey) })).status,
        200,
      );
      assert.equal(
        (
          await anonymous.put(
            `/api/accounts/${id}`,
            { status: 'blocked' },
            { headers: bearer(accountsKey) },
          )
        ).status,
        200,
      );
      assert.equal(
        (await anonymous.delete(`/api/accounts/${id}`, { headers: bearer(accountsKey) })).status,
        204,
      );
      assert.equal((await embedded.admin.get(`/api/accounts/${id}`)).status, 404);
    });

    it('lets the participant certificate verify what the admin wrote', async () => {
      const iban = freshIban();
      assert.equal(
        (await embedded.admin.post('/accounts', { iban, name: 'Verified Holder' })).status,
        201,
      );
      // The gateway's copy of the accounts catches up asynchronously; until then the answer is NOAP.
      await eventually(
        async () =>
          (await embedded.client.post('/vop/verify', schemeRequest('Verified Holder', iban))).body
            .partyNameMatch === 'MTCH'
            ? true
            : undefined,
        {
          what: 'a participant verification that matches the admin-written account',
        },
      );
    });
  });

  describe('a certificate and an API key together: the certificate identifies the caller', () => {
    /** Each way of presenting a key, and what a caller without a certificate gets for it on account records. */
    let keys: { name: string; headers: Record<string, string>; alone: number }[];
    let accountId: string;

    before(async () => {
      const revoked = await embedded.admin.post('/admin/api-keys', {
        participantId: 'PSDDE-BAFIN-123456',
        scopes: ['accounts'],
      });
      assert.equal(revoked.status, 201, revoked.text);
      assert.equal(
        (await embedded.admin.delete(`/admin/api-keys/${revoked.body.keyId as string}`)).status,
        200,
      );
      keys = [
        { name: 'no key', headers: {}, alone: 401 },
        { name: 'a key with the accounts scope', headers: bearer(accountsKey), alone: 200 },
        { name: 'a key without the accounts scope', headers: bearer(verifyKey), alone: 403 },
        {
          name: 'a revoked key',
          headers: bearer(revoked.body.secret as string),
          alone: 401,
        },
        { name: 'an unknown key', headers: bearer(`vop_test_${'A'.repeat(43)}`), alone: 401 },
        {
          name: 'a live key in a test deployment',
          headers: bearer(`vop_live_${'A'.repeat(43)}`),
          alone: 401,
        },
        { name: 'a malformed header', headers: { authorization: 'Basic a2V5' }, alone: 401 },
      ];
      const created = await embedded.admin.post('/accounts', {
        iban: freshIban(),
        name: 'Twice Credentialed',
      });
      assert.equal(created.status, 201, created.text);
      accountId = created.body.id as string;
    });

    it('reads the key of a caller without a certificate', async () => {
      for (const key of keys) {
        const answer = await anonymous.get(`/api/accounts/${accountId}`, { headers: key.headers });
        assert.equal(answer.status, key.alone, key.name);
      }
    });

    it('lets the admin certificate through whatever key comes beside it', async () => {
      for (const key of keys) {
        const answer = await embedded.admin.get(`/api/accounts/${accountId}`, {
          headers: key.headers,
        });
        assert.equal(answer.status, 200, `${key.name}: ${answer.text}`);
      }
    });

    it('refuses the participant certificate on account records, whatever key comes beside it', async () => {
      for (const key of keys) {
        const answer = await embedded.client.get(`/api/accounts/${accountId}`, {
          headers: key.headers,
        });
        assert.equal(answer.status, 403, `${key.name}: ${answer.text}`);
        assert.equal(answer.body.error.code, 'ACCESS_DENIED');
      }
    });

    it('lets the participant certificate verify whatever key comes beside it', async () => {
      for (const key of keys) {
        const answer = await embedded.client.get(`/api/verify/${randomUUID()}`, {
          headers: key.headers,
        });
        // 404: the caller reached the route (no such verification).
        assert.equal(answer.status, 404, `${key.name}: ${answer.text}`);
      }
    });
  });

  describe('GET /health/detailed', () => {
    it('reports the database, the bus, the outbox relay, uptime and version to the admin', async () => {
      const response = await embedded.admin.get('/health/detailed');
      assert.equal(response.status, 200);
      assert.equal(response.body.status, 'healthy');
      assert.equal(response.body.version, '0.1.0');
      assert.ok(
        Number.isInteger(response.body.uptime_seconds) && response.body.uptime_seconds >= 0,
      );
      assert.equal(response.body.components.database.status, 'up');
      assert.equal(response.body.components.bus.status, 'up');
      const [relay] = response.body.components.outbox as Array<{
        name: string;
        status: string;
        lag: number;
      }>;
      assert.equal(relay?.name, 'gateway-outbox');
      assert.equal(relay?.status, 'up');
      assert.ok(Number.isInteger(relay?.lag) && (relay?.lag ?? -1) >= 0);
    });

    it('answers 403 ACCESS_DENIED in the flat format to the participant, a key holder and an anonymous caller', async () => {
      for (const response of [
        await embedded.client.get('/health/detailed'),
        await anonymous.get('/health/detailed', { headers: bearer(accountsKey) }),
        await anonymous.get('/health/detailed'),
        await embedded.client.get('/v1/health/detailed'),
      ]) {
        assert.equal(response.status, 403);
        assert.equal(response.body.error, 'ACCESS_DENIED');
      }
    });
  });

  describe('security headers', () => {
    const expected = {
      'strict-transport-security': 'max-age=31536000',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'cache-control': 'no-store',
    };

    it('are set on successes, refusals, errors and unknown paths alike', async () => {
      const answers = [
        await embedded.client.get('/health'),
        await anonymous.get(`/verify/${randomUUID()}`),
        await embedded.client.get('/no/such/endpoint'),
        await embedded.client.post('/vop/verify', { party: {} }),
        await embedded.admin.get('/health/detailed'),
      ];
      for (const response of answers) {
        for (const [name, value] of Object.entries(expected))
          assert.equal(response.headers[name], value, `${name} on ${response.status}`);
      }
    });
  });
});

describe('test-only sandbox account endpoints', () => {
  const uuidOf = (testAccountId: string): string => testAccountId.replace(/^acc_/, '');

  it('in a test deployment: creates an acc_ account the participant can verify, deletes it with a status body, refuses live keys', async () => {
    const embedded = await runEmbedded();
    try {
      const iban = germanIban(910_001);
      const created = await embedded.admin.post('/api/accounts', { iban, name: 'Sandra Sandbox' });
      assert.equal(created.status, 201, created.text);
      assert.match(
        created.body.id,
        /^acc_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      assert.deepEqual(
        { iban: created.body.iban, name: created.body.name },
        { iban, name: 'Sandra Sandbox' },
      );
      assert.ok(!Number.isNaN(Date.parse(created.body.created_at)));
      await eventually(
        async () =>
          (await embedded.client.post('/vop/verify', schemeRequest('Sandra Sandbox', iban))).body
            .partyNameMatch === 'MTCH'
            ? true
            : undefined,
        {
          what: 'the test account verifiable',
        },
      );

      assert.equal(
        (
          await embedded.client.post('/api/accounts', {
            iban: germanIban(910_002),
            name: 'Not Allowed',
          })
        ).status,
        403,
      );
      const liveKey = await embedded.admin.post('/admin/api-keys', {
        participantId: 'PSDDE-BAFIN-123456',
        scopes: ['accounts'],
        environment: 'live',
      });
      const anonymous = httpsClient({
        baseUrl: embedded.service.url,
        caPem: await readFile(embedded.service.pki.caPath, 'utf8'),
      });
      try {
        const refused = await anonymous.post(
          '/api/accounts',
          { iban: germanIban(910_003), name: 'Live Intruder' },
          { headers: bearer(liveKey.body.secret as string) },
        );
        assert.equal(refused.status, 401);
        assert.equal(refused.body.error.code, 'UNAUTHORIZED');
      } finally {
        anonymous.close();
      }

      const deleted = await embedded.admin.delete(`/api/accounts/${created.body.id}`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.status, 'deleted');
      assert.equal(typeof deleted.body.message, 'string');
      assert.equal(
        (await embedded.admin.get(`/api/accounts/${uuidOf(created.body.id)}`)).status,
        404,
      );
      assert.equal((await embedded.admin.delete(`/api/accounts/${created.body.id}`)).status, 404);
    } finally {
      await embedded.stop();
    }
  });

  it('in a live deployment the test-only endpoints answer 404', async () => {
    const embedded = await runEmbedded({ env: { VOP_ENVIRONMENT: 'live' } });
    try {
      const created = await embedded.admin.post('/api/accounts', {
        iban: germanIban(910_010),
        name: 'Never Created',
      });
      assert.equal(created.status, 404);
      assert.equal((await embedded.admin.delete(`/api/accounts/acc_${randomUUID()}`)).status, 404);
    } finally {
      await embedded.stop();
    }
  });

  it("removes test accounts after the retention with a scheduled job, and leaves the bank's accounts alone", async () => {
    const embedded = await runEmbedded({
      env: { VOP_TEST_ACCOUNT_RETENTION_MS: '500', VOP_TEST_ACCOUNT_SWEEP_INTERVAL_MS: '100' },
    });
    try {
      const testAccount = await embedded.admin.post('/api/accounts', {
        iban: germanIban(910_020),
        name: 'Temporary Holder',
      });
      const bankAccount = await embedded.admin.post('/accounts', {
        iban: germanIban(910_021),
        name: 'Permanent Holder',
      });
      assert.deepEqual([testAccount.status, bankAccount.status], [201, 201]);

      await eventually(
        async () =>
          (await embedded.admin.get(`/api/accounts/${uuidOf(testAccount.body.id)}`)).status === 404
            ? true
            : undefined,
        {
          timeoutMs: 15_000,
          what: 'the expired test account removed',
        },
      );
      // Created alongside and older than the retention too: only the test account is the job's.
      assert.equal((await embedded.admin.get(`/api/accounts/${bankAccount.body.id}`)).status, 200);
    } finally {
      await embedded.stop();
    }
  });
});
