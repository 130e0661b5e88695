import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '@vop/config';
import { createPgliteClient, createPostgresClient, type SqlClient } from '@vop/event-store';
import {
  createGateway,
  developmentKeyPath,
  gatewaySecuritySettings,
  type Gateway,
} from '@vop/gateway';
import { startHttpsServer, type Principal } from '@vop/http';
import { createInProcessBus } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import { ensureDevPki } from '@vop/pki';
import { createTestDatabase, germanIban, httpsClient, type HttpsClient } from '@vop/testing';
import { runEmbedded } from '../embedded/fixtures.js';

const ADMIN: Principal = {
  kind: 'certificate',
  participantId: 'ADMIN-TEST',
  fingerprint: '00'.repeat(32),
  admin: true,
};
const PARTICIPANT: Principal = {
  kind: 'certificate',
  participantId: 'PSDDE-BAFIN-123456',
  fingerprint: '11'.repeat(32),
  admin: false,
};
const ADMIN_HEADER = { 'x-test-principal': 'admin' };
const PARTICIPANT_HEADER = { 'x-test-principal': 'participant' };

interface TestGateway {
  gateway: Gateway;
  client: HttpsClient;
  close(): Promise<void>;
}

/**
 * A gateway over real HTTPS whose caller identity a test header chooses: a stand-in for the client-certificate
 * middleware, which sets the same Principal.
 */
async function startTestGateway(
  sql: SqlClient,
  env: Record<string, string>,
  dataDir: string,
): Promise<TestGateway> {
  const config = loadConfig({
    VOP_DATA_DIR: dataDir,
    VOP_PROFILE: 'production',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const bus = createInProcessBus();
  const gateway = createGateway({
    sql,
    bus,
    logger: createLogger({ service: 'test', level: 'silent' }),
    instanceId: randomUUID().slice(0, 8),
    respondingPsp: 'VOPBDEFFXXX',
    verifyDeadlineMs: 2000,
    security: gatewaySecuritySettings(config),
  });
  await gateway.start();
  const pki = await ensureDevPki(dataDir);
  const [certPem, keyPem, caPem] = await Promise.all([
    readFile(pki.serverCertPath, 'utf8'),
    readFile(pki.serverKeyPath, 'utf8'),
    readFile(pki.caPath, 'utf8'),
  ]);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chosen = req.headers['x-test-principal'];
    const principal =
      chosen === 'admin' ? ADMIN : chosen === 'participant' ? PARTICIPANT : undefined;
    if (principal) Object.assign(res, { locals: { principal } });
    gateway.app(req, res);
  };
  // caPem (client-certificate trust) arrives with the mutual-TLS server; a variable keeps this valid before and after.
  const serverOptions = { handler, host: '127.0.0.1', port: 0, certPem, keyPem, caPem };
  const server = await startHttpsServer(serverOptions);
  const client = httpsClient({ baseUrl: server.url, caPem });
  return {
    gateway,
    client,
    async close() {
      client.close();
      await server.close();
      await gateway.stop();
      await bus.close();
    },
  };
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

describe('API keys and admin endpoints with audit', () => {
  let sql: SqlClient;
  let dataDir: string;
  let testGateway: TestGateway;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-keys-'));
    sql = await createPgliteClient({});
    testGateway = await startTestGateway(sql, { VOP_ENVIRONMENT: 'test' }, dataDir);
  });
  after(async () => {
    await testGateway.close();
    await sql.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('issues, lists and revokes a key; the secret is shown once and never again; every step is audited', async () => {
    const { client } = testGateway;
    const issued = await client.post(
      '/admin/api-keys',
      { participantId: 'PSDDE-BAFIN-123456', scopes: ['verify'] },
      { headers: ADMIN_HEADER },
    );
    assert.equal(issued.status, 201);
    assert.match(issued.body.secret, /^vop_test_[A-Za-z0-9_-]{43,}$/);
    assert.equal(issued.body.environment, 'test');
    const { keyId, secret } = issued.body as { keyId: string; secret: string };

    // A valid key reaches the route: an unknown verification is 404, not 401.
    assert.equal(
      (await client.get(`/api/verify/${randomUUID()}`, { headers: bearer(secret) })).status,
      404,
    );

    const listed = await client.get('/admin/api-keys', { headers: ADMIN_HEADER });
    assert.equal(listed.status, 200);
    const entry = (
      listed.body.keys as Array<{ keyId: string; revokedAt: string | null; participantId: string }>
    ).find((key) => key.keyId === keyId);
    assert.deepEqual(
      { participantId: entry?.participantId, revokedAt: entry?.revokedAt },
      { participantId: 'PSDDE-BAFIN-123456', revokedAt: null },
    );
    assert.ok(!listed.text.includes(secret));

    const revoked = await client.delete(`/admin/api-keys/${keyId}`, { headers: ADMIN_HEADER });
    assert.equal(revoked.status, 200);
    const refused = await client.get(`/api/verify/${randomUUID()}`, { headers: bearer(secret) });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error, 'UNAUTHORIZED');

    const audit = await client.get('/admin/audit?limit=10', { headers: ADMIN_HEADER });
    assert.equal(audit.status, 200);
    assert.ok(!audit.text.includes(secret));
    const ours = (
      audit.body.entries as Array<{
        operation: string;
        target?: string;
        user: string;
        result: string;
        timestamp: string;
      }>
    ).filter((e) => e.target === keyId);
    assert.deepEqual(
      ours.map(({ operation, user, result }) => ({ operation, user, result })),
      [
        { operation: 'api-key.revoked', user: 'ADMIN-TEST', result: 'success' },
        { operation: 'api-key.issued', user: 'ADMIN-TEST', result: 'success' },
      ],
    );
    assert.ok(ours.every((e) => !Number.isNaN(Date.parse(e.timestamp))));
    // Every management operation is audited, reads included (specification H).
    const read = (audit.body.entries as Array<{ operation: string; user: string }>).find(
      (e) => e.operation === 'GET /admin/api-keys',
    );
    assert.equal(read?.user, 'ADMIN-TEST');
  });

  it('pages the audit log newest first with a cursor', async () => {
    const { client } = testGateway;
    for (let index = 0; index < 3; index++) {
      await client.post(
        '/admin/api-keys',
        { participantId: `PAGE-${index}`, scopes: ['verify'] },
        { headers: ADMIN_HEADER },
      );
    }
    const first = await client.get('/admin/audit?limit=2', { headers: ADMIN_HEADER });
    assert.equal(first.body.entries.length, 2);
    assert.equal(typeof first.body.nextCursor, 'string');
    const second = await client.get(`/admin/audit?limit=2&cursor=${first.body.nextCursor}`, {
      headers: ADMIN_HEADER,
    });
    assert.equal(second.status, 200);
    const firstTimes = (first.body.entries as Array<{ timestamp: string }>).map((e) =>
      Date.parse(e.timestamp),
    );
    const secondTimes = (second.body.entries as Array<{ timestamp: string }>).map((e) =>
      Date.parse(e.timestamp),
    );
    assert.ok(Math.min(...firstTimes) >= Math.max(...secondTimes));
    assert.equal((await client.get('/admin/audit?limit=0', { headers: ADMIN_HEADER })).status, 400);
  });

  it('refuses a live key in a test deployment, and an unknown key, with 401', async () => {
    const { client } = testGateway;
    const live = await client.post(
      '/admin/api-keys',
      { participantId: 'PSDDE-BAFIN-123456', scopes: ['verify'], environment: 'live' },
      { headers: ADMIN_HEADER },
    );
    assert.equal(live.status, 201);
    assert.match(live.body.secret, /^vop_live_/);
    const refused = await client.get(`/verify/${randomUUID()}`, {
      headers: bearer(live.body.secret),
    });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error, 'UNAUTHORIZED');
    const unknown = await client.get(`/api/verify/${randomUUID()}`, {
      headers: bearer(`vop_test_${'A'.repeat(43)}`),
    });
    assert.equal(unknown.status, 401);
  });

  it('answers 403 ACCESS_DENIED (flat) to a non-admin or anonymous caller on /admin/*, and audits the denied write', async () => {
    const { client } = testGateway;
    const asParticipant = await client.post(
      '/admin/api-keys',
      { participantId: 'X', scopes: ['verify'] },
      { headers: PARTICIPANT_HEADER },
    );
    assert.equal(asParticipant.status, 403);
    assert.equal(asParticipant.body.error, 'ACCESS_DENIED');
    const anonymous = await client.get('/admin/api-keys');
    assert.equal(anonymous.status, 403);
    assert.equal(anonymous.body.error, 'ACCESS_DENIED');
    // Reads are audited too (denied ones included), so the write is among the last few, not the last.
    const audit = await client.get('/admin/audit?limit=20', { headers: ADMIN_HEADER });
    const denied = (
      audit.body.entries as Array<{ user: string; result: string; status?: number }>
    ).find((e) => e.user === PARTICIPANT.participantId);
    assert.deepEqual(denied && { result: denied.result, status: denied.status }, {
      result: 'failure',
      status: 403,
    });
  });
});

describe('development profile test key', () => {
  it('writes a working test key to <data>/pki/test-api-key.txt with mode 0600 on first start', async () => {
    const embedded = await runEmbedded({
      env: { VOP_PROFILE: 'development', VOP_ENVIRONMENT: 'test' },
    });
    // Without a client certificate, so the key is what identifies the caller.
    const keyOnly = httpsClient({
      baseUrl: embedded.service.url,
      caPem: await readFile(embedded.service.pki.caPath, 'utf8'),
    });
    try {
      const file = developmentKeyPath(embedded.dataDir);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const secret = (await readFile(file, 'utf8')).trim();
      assert.match(secret, /^vop_test_/);
      assert.equal(
        (await keyOnly.get(`/api/verify/${randomUUID()}`, { headers: bearer(secret) })).status,
        404,
      );
      assert.equal(
        (
          await keyOnly.get(`/api/verify/${randomUUID()}`, {
            headers: bearer(`${secret.slice(0, -2)}xx`),
          })
        ).status,
        401,
      );
    } finally {
      keyOnly.close();
      await embedded.stop();
    }
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After and RATE_LIMIT_EXCEEDED once the test-endpoint budget is spent', async () => {
    const embedded = await runEmbedded({ env: { VOP_RATE_LIMIT_TEST_PER_HOUR: '2' } });
    try {
      const sandboxDelete = () => embedded.admin.delete(`/api/accounts/acc_${randomUUID()}`);
      assert.deepEqual(
        [(await sandboxDelete()).status, (await sandboxDelete()).status],
        [404, 404],
      );
      const limited = await sandboxDelete();
      assert.equal(limited.status, 429);
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600);
      assert.equal(limited.body.error.code, 'RATE_LIMIT_EXCEEDED');
      assert.equal(limited.body.error.details.retry_after, retryAfter);
      const sandboxCreate = await embedded.admin.post('/api/accounts', {
        iban: germanIban(880_001),
        name: 'Test Holder',
      });
      assert.equal(sandboxCreate.status, 429, 'the sandbox create draws from the same budget');

      // The bank's own account writes (admin certificate) never draw from the test budget.
      const bankWrites: number[] = [];
      for (let index = 0; index < 4; index++) {
        const created = await embedded.admin.post('/accounts', {
          iban: germanIban(880_100 + index),
          name: `Holder ${index}`,
        });
        bankWrites.push(created.status);
        bankWrites.push(
          (await embedded.admin.put(`/api/accounts/${created.body.id}`, { status: 'closed' }))
            .status,
        );
      }
      assert.deepEqual(bankWrites, [201, 200, 201, 200, 201, 200, 201, 200]);
    } finally {
      await embedded.stop();
    }
  });

  it('limits live verification per participant from VOP_RATE_LIMITS, in the path format', async () => {
    const embedded = await runEmbedded({
      env: { VOP_ENVIRONMENT: 'live', VOP_RATE_LIMITS: '{"default":1}' },
    });
    try {
      assert.notEqual((await embedded.client.get(`/verify/${randomUUID()}`)).status, 429);
      const limited = await embedded.client.get(`/verify/${randomUUID()}`);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error, 'RATE_LIMIT_EXCEEDED');
      assert.equal(limited.body.retry_after, Number(limited.headers['retry-after']));
    } finally {
      await embedded.stop();
    }
  });

  it('two gateway instances on one PostgreSQL database share one budget', async () => {
    const database = await createTestDatabase('rate_limits');
    const sqlA = createPostgresClient({ connectionString: database.url, max: 2 });
    const sqlB = createPostgresClient({ connectionString: database.url, max: 2 });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-limits-'));
    const env = { VOP_ENVIRONMENT: 'test', VOP_RATE_LIMIT_ADMIN_PER_MINUTE: '4' };
    const first = await startTestGateway(sqlA, env, dataDir);
    const second = await startTestGateway(sqlB, env, dataDir);
    try {
      const statuses: number[] = [];
      for (let index = 0; index < 6; index++) {
        const gateway = index % 2 === 0 ? first : second;
        statuses.push(
          (await gateway.client.get('/admin/api-keys', { headers: ADMIN_HEADER })).status,
        );
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    } finally {
      await first.close();
      await second.close();
      await sqlA.close();
      await sqlB.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
