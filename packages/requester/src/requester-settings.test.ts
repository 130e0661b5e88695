import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '@vop/config';
import { ensureDevPki } from '@vop/pki';
import { requesterSettings, requesterTls } from './requester-settings.js';

describe('the requester settings', () => {
  it('given the development profile, then the dev PKI certificate, key and CA, and the defaults', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'vop-requester-'));
    try {
      const pki = await ensureDevPki(dataDir);
      const settings = requesterSettings(loadConfig({ VOP_DATA_DIR: dataDir }));

      assert.equal(settings.certPath, pki.clientCertPath);
      assert.equal(settings.keyPath, pki.clientKeyPath);
      assert.deepEqual(settings.caPaths, [pki.caPath]);
      assert.ok(settings.ratePerSecond >= 1000, 'a 500 req/s bench fits the default budget');
      assert.equal(settings.breaker.consecutiveFailures, 5);
      const tls = await requesterTls(settings);
      assert.match(tls.cert.toString('utf8'), /BEGIN CERTIFICATE/);
      assert.equal(tls.ca.length, 1);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('given production without the certificate settings, then each missing one is named', () => {
    assert.throws(
      () =>
        requesterSettings(loadConfig({ VOP_PROFILE: 'production', VOP_REQUESTER_CERT: '/c.pem' })),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.issues.length === 2 &&
        error.issues.some((issue) => issue.startsWith('VOP_REQUESTER_KEY')) &&
        error.issues.some((issue) => issue.startsWith('VOP_REQUESTER_CA')),
    );
  });

  it('given settings, then they are read: a CA list, the budget and the breaker', () => {
    const settings = requesterSettings(
      loadConfig({
        VOP_PROFILE: 'production',
        VOP_REQUESTER_CERT: '/pki/requester.pem',
        VOP_REQUESTER_KEY: '/pki/requester-key.pem',
        VOP_REQUESTER_CA: '/pki/scheme-ca.pem, /pki/other-ca.pem',
        VOP_REQUESTER_RATE_PER_SECOND: '250',
        VOP_REQUESTER_BREAKER_COOL_DOWN_MS: '30000',
      }),
    );

    assert.deepEqual(settings.caPaths, ['/pki/scheme-ca.pem', '/pki/other-ca.pem']);
    assert.equal(settings.ratePerSecond, 250);
    assert.equal(settings.breaker.coolDownMs, 30_000);
  });
});
