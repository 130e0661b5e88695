import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '@vop/observability';
import {
  certificateFingerprint,
  createCertificateAuthority,
  issueCertificate,
  type PemPair,
} from '@vop/pki';
import { httpsClient, type HttpsClient } from '@vop/testing';
import {
  authorizeByFamily,
  createHttpApp,
  principalOf,
  startHttpsServer,
  type RunningServer,
  createRouter,
} from '@vop/http';
import { clientCertificateAuth, requireCertificateByFamily } from './client-certificate.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('clientCertificateAuth over mutual TLS', { timeout: 30_000 }, () => {
  let ca: PemPair;
  let participant: PemPair;
  let admin: PemPair;
  let server: RunningServer;
  let validations = 0;
  const logLines: string[] = [];
  const clients: HttpsClient[] = [];

  function client(credentials: Partial<PemPair> = {}): HttpsClient {
    const created = httpsClient({
      baseUrl: server.url,
      caPem: ca.certPem,
      ...(credentials.certPem !== undefined && {
        certPem: credentials.certPem,
        keyPem: credentials.keyPem,
      }),
    });
    clients.push(created);
    return created;
  }

  before(async () => {
    ca = await createCertificateAuthority({ commonName: 'Middleware Test CA' });
    participant = await issueCertificate(ca, {
      commonName: 'Example Bank',
      usage: 'client',
      organizationIdentifier: 'PSDDE-BAFIN-123456',
    });
    admin = await issueCertificate(ca, { commonName: 'operator', usage: 'client' });
    const serverCertificate = await issueCertificate(ca, {
      commonName: 'localhost',
      usage: 'server',
      ipAddresses: ['127.0.0.1'],
    });
    const logger = createLogger({
      service: 'test',
      level: 'warn',
      destination: new Writable({
        write: (chunk: Buffer, _encoding, done) => (logLines.push(chunk.toString('utf8')), done()),
      }),
    });
    const routes = createRouter();
    routes.get('/vop/whoami', (_req, res) => void res.json(principalOf(res)));
    routes.get('/health', (_req, res) => void res.json({ principal: principalOf(res) ?? null }));
    routes.get('/admin/thing', authorizeByFamily, (_req, res) => void res.json({ ok: true }));
    const app = createHttpApp({
      logger,
      respondingPsp: 'VOPBDEFFXXX',
      routers: [routes],
      beforeRoutes: [
        clientCertificateAuth({
          trustAnchorsPem: ca.certPem,
          admin: { fingerprints: [certificateFingerprint(admin.certPem).toUpperCase()] },
          required: false,
          logger,
          now: () => {
            validations += 1;
            return new Date();
          },
        }),
        requireCertificateByFamily,
      ],
    });
    server = await startHttpsServer({
      handler: app,
      host: '127.0.0.1',
      port: 0,
      certPem: serverCertificate.certPem,
      keyPem: serverCertificate.keyPem,
      caPem: ca.certPem,
    });
  });

  after(async () => {
    for (const each of clients) each.close();
    await server.close();
  });

  it('sets the certificate principal, identified by organizationIdentifier, on every base path', async () => {
    const caller = client(participant);
    for (const path of ['/vop/whoami', '/v1/vop/whoami', '/vop/api/v1/vop/whoami']) {
      const response = await caller.get(path);
      assert.equal(response.status, 200, path);
      assert.deepEqual(response.body, {
        kind: 'certificate',
        participantId: 'PSDDE-BAFIN-123456',
        organizationIdentifier: 'PSDDE-BAFIN-123456',
        fingerprint: certificateFingerprint(participant.certPem),
        admin: false,
      });
    }
  });

  it('validates once per TLS connection, not once per keep-alive request', async () => {
    const before = validations;
    const caller = client(participant);
    for (let request = 0; request < 3; request += 1)
      assert.equal((await caller.get('/health')).status, 200);
    assert.equal(validations - before, 1);
  });

  it('gives admin rights to the configured certificate only: others get 403 ACCESS_DENIED flat', async () => {
    assert.deepEqual((await client(admin).get('/admin/thing')).body, { ok: true });
    const denied = await client(participant).get('/admin/thing');
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, {
      error: 'ACCESS_DENIED',
      message: 'The admin certificate is required',
    });
  });

  it('without a certificate: open paths proceed without a principal, /vop/* is 401 VOP_002, /admin/* 403 ACCESS_DENIED flat', async () => {
    const anonymous = client();
    assert.deepEqual((await anonymous.get('/health')).body, { principal: null });
    const scheme = await anonymous.get('/vop/whoami');
    assert.equal(scheme.status, 401);
    assert.equal(scheme.body.error.code, 'VOP_002');
    assert.equal(scheme.body.error.category, 'SECURITY_ERROR');
    assert.equal(scheme.body.error.details.reason, 'NO_CERTIFICATE');
    const management = await anonymous.get('/admin/thing');
    assert.equal(management.status, 403);
    assert.equal(management.body.error, 'ACCESS_DENIED');
  });

  it('refuses an expired certificate with its reason and logs the reason without the subject', async () => {
    const expired = await issueCertificate(ca, {
      commonName: 'Expired Bank',
      usage: 'client',
      organizationIdentifier: 'PSDDE-BAFIN-999999',
      notBefore: new Date(Date.now() - 40 * DAY_MS),
      notAfter: new Date(Date.now() - 10 * DAY_MS),
    });
    const response = await client(expired).get('/vop/whoami');
    assert.equal(response.status, 401);
    assert.equal(response.body.error.details.reason, 'EXPIRED');
    const refusal = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.reason === 'EXPIRED');
    assert.ok(refusal, 'a log line names the reason');
    assert.doesNotMatch(JSON.stringify(refusal), /Expired Bank|PSDDE-BAFIN-999999/);
  });
});
