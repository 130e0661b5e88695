import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ensureDevPki } from './dev-pki.js';
import { DEV_PKCS12_PASSWORD } from './pkcs12.js';

describe('development PKCS#12 files', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('holds the participant and admin certificates with their keys, under the documented password, private to the owner', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'vop-p12-'));
    dirs.push(dataDir);
    const pki = await ensureDevPki(dataDir);
    assert.ok(pki.clientP12Path && pki.adminP12Path, 'openssl writes them');
    for (const [p12, pem] of [
      [pki.clientP12Path, pki.clientCertPath],
      [pki.adminP12Path, pki.adminCertPath],
    ] as const) {
      const pfx = await readFile(p12);
      // Node's TLS (OpenSSL) opens it: the key and the certificate are inside.
      assert.doesNotThrow(() => createSecureContext({ pfx, passphrase: DEV_PKCS12_PASSWORD }));
      assert.throws(() => createSecureContext({ pfx, passphrase: 'wrong' }));
      assert.equal((await stat(p12)).mode & 0o777, 0o600);
      assert.ok(new X509Certificate(await readFile(pem)).subject.length > 0);
    }
    const again = await ensureDevPki(dataDir);
    assert.deepEqual(
      await readFile(again.adminP12Path as string),
      await readFile(pki.adminP12Path),
    );
  });
});
