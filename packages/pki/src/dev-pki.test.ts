import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import {
  DEV_ADMIN_COMMON_NAME,
  DEV_ADMIN_ORGANIZATION_IDENTIFIER,
  DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
  ensureDevPki,
  type DevPki,
} from './dev-pki.js';
import { createCertificateAuthority } from './certificate-authority.js';
import { ORGANIZATION_IDENTIFIER_OID } from './distinguished-name.js';
import { x509 } from './x509.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const temporaryDirectories: string[] = [];

async function freshDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vop-pki-dev-'));
  temporaryDirectories.push(dir);
  return dir;
}

async function readAll(pki: DevPki): Promise<string[]> {
  const files = [
    pki.caPath,
    pki.serverCertPath,
    pki.serverKeyPath,
    pki.clientCertPath,
    pki.clientKeyPath,
    pki.adminCertPath,
    pki.adminKeyPath,
  ];
  return Promise.all(files.map((file) => readFile(file, 'utf8')));
}

async function certificate(file: string): Promise<x509.X509Certificate> {
  return new x509.X509Certificate(await readFile(file, 'utf8'));
}

function lifetimeDays(cert: x509.X509Certificate): number {
  return (cert.notAfter.getTime() - cert.notBefore.getTime()) / DAY_MS;
}

describe('ensureDevPki', () => {
  after(async () => {
    await Promise.all(temporaryDirectories.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('creates the CA, server, participant and admin files under <dataDir>/pki', async () => {
    const dataDir = await freshDataDir();
    const pki = await ensureDevPki(dataDir);
    assert.equal(pki.created, true);
    assert.equal(pki.dir, path.join(dataDir, 'pki'));
    assert.deepEqual((await readdir(pki.dir)).sort(), [
      'admin-key.pem',
      'admin.p12',
      'admin.pem',
      'ca-key.pem',
      'ca.pem',
      'client-key.pem',
      'client.p12',
      'client.pem',
      'server-key.pem',
      'server.pem',
    ]);
  });

  it('makes private key files readable by the owner only', async () => {
    const pki = await ensureDevPki(await freshDataDir());
    for (const keyFile of [
      pki.serverKeyPath,
      pki.clientKeyPath,
      pki.adminKeyPath,
      path.join(pki.dir, 'ca-key.pem'),
    ]) {
      assert.equal((await stat(keyFile)).mode & 0o777, 0o600, keyFile);
    }
  });

  it('reuses the existing files on a second call', async () => {
    const dataDir = await freshDataDir();
    const first = await ensureDevPki(dataDir);
    const contentsBefore = await readAll(first);
    const second = await ensureDevPki(dataDir);
    assert.equal(second.created, false);
    assert.deepEqual({ ...second, created: true }, first);
    assert.deepEqual(await readAll(second), contentsBefore);
  });

  it('publishes exactly one set when several callers race', async () => {
    const dataDir = await freshDataDir();
    const results = await Promise.all([
      ensureDevPki(dataDir),
      ensureDevPki(dataDir),
      ensureDevPki(dataDir),
    ]);
    assert.equal(results.filter((result) => result.created).length, 1);
    const ca = new NodeX509Certificate(await readFile(results[0]!.caPath));
    for (const file of [
      results[0]!.serverCertPath,
      results[0]!.clientCertPath,
      results[0]!.adminCertPath,
    ]) {
      assert.equal(new NodeX509Certificate(await readFile(file)).verify(ca.publicKey), true, file);
    }
    assert.deepEqual(
      (await readdir(dataDir)).filter((entry) => entry !== 'pki'),
      [],
      'no staging directories are left behind',
    );
  });

  it('replaces an incomplete set and keeps the old files aside', async () => {
    const dataDir = await freshDataDir();
    const first = await ensureDevPki(dataDir);
    const oldCa = await readFile(first.caPath, 'utf8');
    await unlink(first.serverKeyPath);
    const second = await ensureDevPki(dataDir);
    assert.equal(second.created, true);
    assert.notEqual(await readFile(second.caPath, 'utf8'), oldCa);
    const setAside = (await readdir(dataDir)).filter((entry) => entry.startsWith('pki.replaced-'));
    assert.equal(setAside.length, 1);
  });

  it('gives the participant and the admin distinct organisation identifiers readable with @peculiar/x509', async () => {
    const pki = await ensureDevPki(await freshDataDir());
    const participant = await certificate(pki.clientCertPath);
    const admin = await certificate(pki.adminCertPath);
    assert.deepEqual(participant.subjectName.getField(ORGANIZATION_IDENTIFIER_OID), [
      DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
    ]);
    assert.deepEqual(admin.subjectName.getField(ORGANIZATION_IDENTIFIER_OID), [
      DEV_ADMIN_ORGANIZATION_IDENTIFIER,
    ]);
    assert.deepEqual(admin.subjectName.getField('CN'), [DEV_ADMIN_COMMON_NAME]);
    assert.notEqual(DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER, DEV_ADMIN_ORGANIZATION_IDENTIFIER);
  });

  it('issues a CA valid for ten years and leaves valid for one', async () => {
    const pki = await ensureDevPki(await freshDataDir());
    const ca = await certificate(pki.caPath);
    const basicConstraints = ca.getExtension(x509.BasicConstraintsExtension);
    const keyUsage = ca.getExtension(x509.KeyUsagesExtension);
    assert.equal(basicConstraints?.ca, true);
    assert.ok(keyUsage !== null && (keyUsage.usages & x509.KeyUsageFlags.keyCertSign) !== 0);
    assert.equal(Math.round(lifetimeDays(ca)), 3650);
    for (const leaf of [pki.serverCertPath, pki.clientCertPath, pki.adminCertPath]) {
      assert.equal(Math.round(lifetimeDays(await certificate(leaf))), 365, leaf);
    }
  });

  it("issues from the caller's CA and names the caller's participant when asked", async () => {
    const ca = await createCertificateAuthority({ commonName: 'Scheme CA' });
    const participant = { commonName: 'bank-a', organizationIdentifier: 'PSDXX-SIAB-000001' };
    const pki = await ensureDevPki(await freshDataDir(), { ca, participant });
    assert.equal(await readFile(pki.caPath, 'utf8'), ca.certPem);
    const caCertificate = new NodeX509Certificate(ca.certPem);
    for (const file of [pki.serverCertPath, pki.clientCertPath, pki.adminCertPath]) {
      const leaf = new NodeX509Certificate(await readFile(file));
      assert.equal(leaf.verify(caCertificate.publicKey), true, file);
    }
    const client = await certificate(pki.clientCertPath);
    assert.deepEqual(client.subjectName.getField(ORGANIZATION_IDENTIFIER_OID), [
      participant.organizationIdentifier,
    ]);
    assert.deepEqual(client.subjectName.getField('CN'), [participant.commonName]);
  });

  it('sets aside a set issued by another CA or for another participant, and reuses a matching one', async () => {
    const dataDir = await freshDataDir();
    const participant = { commonName: 'bank-b', organizationIdentifier: 'PSDXX-SIBB-000002' };
    const first = await ensureDevPki(dataDir, {
      ca: await createCertificateAuthority({ commonName: 'Old CA' }),
      participant,
    });
    const ca = await createCertificateAuthority({ commonName: 'New CA' });
    const second = await ensureDevPki(dataDir, { ca, participant });
    assert.equal(second.created, true);
    assert.equal(await readFile(second.caPath, 'utf8'), ca.certPem);
    const third = await ensureDevPki(dataDir, {
      ca,
      participant: { ...participant, organizationIdentifier: 'PSDXX-SIBB-000009' },
    });
    assert.equal(third.created, true);
    const fourth = await ensureDevPki(dataDir, {
      ca,
      participant: { ...participant, organizationIdentifier: 'PSDXX-SIBB-000009' },
    });
    assert.equal(fourth.created, false);
    // Without options a set is reused as it is: a deployment started on the folder keeps its issuer.
    assert.equal((await ensureDevPki(dataDir)).created, false);
    assert.equal(first.dir, fourth.dir);
    const setAside = (await readdir(dataDir)).filter((entry) => entry.startsWith('pki.replaced-'));
    assert.equal(setAside.length, 2);
  });

  it('gives the server certificate serverAuth and the client certificates clientAuth', async () => {
    const pki = await ensureDevPki(await freshDataDir());
    const usages = async (file: string): Promise<unknown[]> => [
      ...((await certificate(file)).getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? []),
    ];
    assert.deepEqual(await usages(pki.serverCertPath), [x509.ExtendedKeyUsage.serverAuth]);
    assert.deepEqual(await usages(pki.clientCertPath), [x509.ExtendedKeyUsage.clientAuth]);
    assert.deepEqual(await usages(pki.adminCertPath), [x509.ExtendedKeyUsage.clientAuth]);
    const server = new NodeX509Certificate(await readFile(pki.serverCertPath));
    assert.equal(server.checkHost('localhost'), 'localhost');
    assert.equal(server.checkIP('127.0.0.1'), '127.0.0.1');
  });
});
