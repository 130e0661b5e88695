import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import {
  createCertificateAuthority,
  issueCertificate,
  type IssueCertificateOptions,
  type PemPair,
} from '@vop/pki';
import { germanIban, httpsClient, type HttpsClient } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from '../embedded/fixtures.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The embedded service over real TLS 1.3 with generated client certificates. The server asks for a certificate but
 * lets every handshake complete, so each refusal is an HTTP 401 in the path's format (VOP_002 on /vop/*).
 */
/** A BIC names one participant in the directory: the generated certificate's holder has its own. */
const GENERATED_PARTICIPANT_BIC = 'BYLADEMMXXX';

describe('mutual TLS at the edge', { timeout: 60_000 }, () => {
  let running: RunningEmbedded;
  let caPem: string;
  let devCa: PemPair;
  const clients: HttpsClient[] = [];

  function clientWith(credentials: PemPair | undefined): HttpsClient {
    const created = httpsClient({
      baseUrl: running.service.url,
      caPem,
      ...(credentials && { certPem: credentials.certPem, keyPem: credentials.keyPem }),
    });
    clients.push(created);
    return created;
  }

  function issue(options: Partial<IssueCertificateOptions>, ca: PemPair = devCa): Promise<PemPair> {
    return issueCertificate(ca, {
      commonName: 'Generated Participant',
      usage: 'client',
      organizationIdentifier: 'PSDDE-BAFIN-123456',
      ...options,
    });
  }

  async function verifyWith(credentials: PemPair | undefined) {
    return clientWith(credentials).post('/vop/verify', {
      ...schemeRequest('Erika Mustermann', germanIban(4242)),
      requestingAgent: { financialInstitutionId: { bicfi: GENERATED_PARTICIPANT_BIC } },
    });
  }

  before(async () => {
    running = await runEmbedded();
    const { pki } = running.service;
    caPem = await readFile(pki.caPath, 'utf8');
    devCa = { certPem: caPem, keyPem: await readFile(path.join(pki.dir, 'ca-key.pem'), 'utf8') };
    // The generated participant adheres to the scheme (issue 16), beside the development one.
    const loaded = await running.admin.put('/admin/scheme-directory', {
      snapshotId: 'mtls-test',
      participants: [
        { authorisationNumber: 'PSDXX-DEV-000001', bics: ['DEUTDEFFXXX'], environment: 'T' },
        {
          authorisationNumber: 'PSDDE-BAFIN-123456',
          bics: [GENERATED_PARTICIPANT_BIC],
          environment: 'T',
        },
      ],
    });
    assert.equal(loaded.status, 200, loaded.text);
  });

  after(async () => {
    for (const each of clients) each.close();
    await running.stop();
  });

  it('answers 200 on /vop/verify for a valid participant certificate with QWAC markers', async () => {
    const qwac = await issue({
      qcStatements: {
        qualified: true,
        psd2: { roles: ['PSP_PI'], ncaName: 'BaFin', ncaId: 'DE-BAFIN' },
      },
    });
    const response = await verifyWith(qwac);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.partyNameMatch, 'NOAP');
  });

  it('answers 200 for the development participant certificate (client.pem)', async () => {
    const response = await running.client.post(
      '/vop/verify',
      schemeRequest('Erika Mustermann', germanIban(4243)),
    );
    assert.equal(response.status, 200, response.text);
  });

  const refusals: Array<{
    name: string;
    reason: string;
    credentials: () => Promise<PemPair | undefined>;
  }> = [
    { name: 'no certificate', reason: 'NO_CERTIFICATE', credentials: async () => undefined },
    {
      name: 'an expired certificate',
      reason: 'EXPIRED',
      credentials: () =>
        issue({
          notBefore: new Date(Date.now() - 400 * DAY_MS),
          notAfter: new Date(Date.now() - DAY_MS),
        }),
    },
    {
      name: 'a certificate not yet valid',
      reason: 'NOT_YET_VALID',
      credentials: () =>
        issue({
          notBefore: new Date(Date.now() + DAY_MS),
          notAfter: new Date(Date.now() + 300 * DAY_MS),
        }),
    },
    {
      name: 'a certificate valid for more than two years',
      reason: 'LIFETIME_TOO_LONG',
      credentials: () =>
        issue({
          notBefore: new Date(Date.now() - DAY_MS),
          notAfter: new Date(Date.now() + 3 * 365 * DAY_MS),
        }),
    },
    {
      name: 'a certificate from an unknown CA',
      reason: 'UNTRUSTED',
      credentials: async () =>
        issue({}, await createCertificateAuthority({ commonName: 'Unknown CA' })),
    },
    {
      name: 'a certificate for serverAuth only',
      reason: 'NOT_FOR_CLIENT_AUTH',
      credentials: () => issue({ usage: 'server', dnsNames: ['participant.example'] }),
    },
  ];

  for (const refusal of refusals) {
    it(`answers 401 VOP_002 (${refusal.reason}) on /vop/verify for ${refusal.name}`, async () => {
      const response = await verifyWith(await refusal.credentials());
      assert.equal(response.status, 401, response.text);
      assert.equal(response.body.error.code, 'VOP_002');
      assert.equal(response.body.error.category, 'SECURITY_ERROR');
      assert.equal(response.body.error.details.reason, refusal.reason);
      assert.equal(response.body.metadata.respondingPSP, 'VOPBDEFFXXX');
    });
  }

  it('answers 401 VOP_002 (CLIENT_INVALID) for a valid certificate whose holder is no participant', async () => {
    const response = await verifyWith(
      await issue({ organizationIdentifier: 'PSDDE-BAFIN-777777' }),
    );
    assert.equal(response.status, 401, response.text);
    assert.equal(response.body.error.code, 'VOP_002');
    assert.equal(response.body.error.details.reason, 'CLIENT_INVALID');
  });

  it('answers 401 on every base path of the scheme family', async () => {
    const anonymous = clientWith(undefined);
    for (const base of ['/v1', '/vop/api/v1']) {
      const response = await anonymous.post(
        `${base}/vop/verify`,
        schemeRequest('Erika Mustermann', germanIban(4244)),
      );
      assert.equal(response.status, 401, base);
      assert.equal(response.body.error.code, 'VOP_002', base);
    }
  });

  it('negotiates TLS 1.3 and refuses a TLS 1.2 client in the handshake', async () => {
    const url = new URL('/livez', running.service.url);
    const attempt = (maxVersion: 'TLSv1.2' | 'TLSv1.3') =>
      new Promise<string>((resolve, reject) => {
        const req = https.request(url, { ca: caPem, maxVersion, agent: false }, (res) => {
          resolve(String((res.socket as TLSSocket).getProtocol()));
          res.resume();
        });
        req.on('error', reject);
        req.end();
      });
    assert.equal(await attempt('TLSv1.3'), 'TLSv1.3');
    await assert.rejects(attempt('TLSv1.2'), (error: NodeJS.ErrnoException) =>
      /ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION|tlsv1 alert protocol version|unsupported protocol/i.test(
        `${error.code} ${error.message}`,
      ),
    );
  });
});
