import assert from 'node:assert/strict';
import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createCertificateAuthority } from '../certificate-authority.js';
import { issueCertificate } from '../issue-certificate.js';
import type { PemPair } from '../types.js';
import {
  createClientCertificateValidator,
  validateClientCertificate,
} from './validate-client-certificate.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = new Date();

describe('validateClientCertificate', { timeout: 30_000 }, () => {
  let ca: PemPair;

  before(async () => {
    ca = await createCertificateAuthority({ commonName: 'Trusted Test CA' });
  });

  async function verdictFor(chain: Array<string | Uint8Array>, now = NOW) {
    return validateClientCertificate({ chain, trustAnchorsPem: ca.certPem, now });
  }

  it('accepts a QWAC-style certificate and reads organizationIdentifier, PSD2 roles and QcCompliance', async () => {
    const psp = await issueCertificate(ca, {
      commonName: 'Example Bank',
      usage: 'client',
      organizationIdentifier: 'PSDDE-BAFIN-123456',
      qcStatements: {
        qualified: true,
        psd2: { roles: ['PSP_PI', 'PSP_AI'], ncaName: 'BaFin', ncaId: 'DE-BAFIN' },
      },
    });
    const verdict = await verdictFor([psp.certPem]);
    const fingerprint = new NodeX509Certificate(psp.certPem).fingerprint256
      .replaceAll(':', '')
      .toLowerCase();
    assert.deepEqual(verdict, {
      ok: true,
      participant: {
        participantId: 'PSDDE-BAFIN-123456',
        organizationIdentifier: 'PSDDE-BAFIN-123456',
        commonName: 'Example Bank',
        fingerprint,
        psd2Roles: ['PSP_PI', 'PSP_AI'],
        qualified: true,
      },
    });
  });

  it('accepts DER bytes as Node presents them and falls back to the CN without QWAC markers', async () => {
    const plain = await issueCertificate(ca, { commonName: 'plain-client', usage: 'client' });
    const verdict = await verdictFor([
      new NodeX509Certificate(plain.certPem).raw,
      new NodeX509Certificate(ca.certPem).raw,
    ]);
    assert.equal(verdict.ok, true);
    assert.ok(verdict.ok);
    assert.equal(verdict.participant.participantId, 'plain-client');
    assert.equal(verdict.participant.organizationIdentifier, undefined);
    assert.deepEqual(verdict.participant.psd2Roles, []);
    assert.equal(verdict.participant.qualified, false);
  });

  it('answers NO_CERTIFICATE for an empty chain', async () => {
    assert.deepEqual(await verdictFor([]), { ok: false, reason: 'NO_CERTIFICATE' });
  });

  it('answers MALFORMED for bytes that are not a certificate', async () => {
    assert.deepEqual(await verdictFor([new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])]), {
      ok: false,
      reason: 'MALFORMED',
    });
  });

  it('answers UNTRUSTED for a certificate from another CA, even one with the same name', async () => {
    const impostorCa = await createCertificateAuthority({ commonName: 'Trusted Test CA' });
    const impostor = await issueCertificate(impostorCa, {
      commonName: 'impostor',
      usage: 'client',
    });
    assert.deepEqual(await verdictFor([impostor.certPem]), { ok: false, reason: 'UNTRUSTED' });
    assert.deepEqual(await verdictFor([impostor.certPem, impostorCa.certPem]), {
      ok: false,
      reason: 'UNTRUSTED',
    });
  });

  it('answers UNTRUSTED when the trust anchor itself is presented as the client certificate', async () => {
    assert.deepEqual(await verdictFor([ca.certPem]), { ok: false, reason: 'UNTRUSTED' });
  });

  it('answers EXPIRED after notAfter', async () => {
    const expired = await issueCertificate(ca, {
      commonName: 'expired',
      usage: 'client',
      notBefore: new Date(NOW.getTime() - 30 * DAY_MS),
      notAfter: new Date(NOW.getTime() - DAY_MS),
    });
    assert.deepEqual(await verdictFor([expired.certPem]), { ok: false, reason: 'EXPIRED' });
  });

  it('answers NOT_YET_VALID before notBefore', async () => {
    const future = await issueCertificate(ca, {
      commonName: 'future',
      usage: 'client',
      notBefore: new Date(NOW.getTime() + DAY_MS),
      notAfter: new Date(NOW.getTime() + 30 * DAY_MS),
    });
    assert.deepEqual(await verdictFor([future.certPem]), { ok: false, reason: 'NOT_YET_VALID' });
  });

  it('answers LIFETIME_TOO_LONG above two years and a day, and accepts exactly two years', async () => {
    const notBefore = new Date(NOW.getTime() - DAY_MS);
    const tooLong = await issueCertificate(ca, {
      commonName: 'long',
      usage: 'client',
      notBefore,
      notAfter: new Date(notBefore.getTime() + 732 * DAY_MS),
    });
    const twoYears = await issueCertificate(ca, {
      commonName: 'two-years',
      usage: 'client',
      notBefore,
      notAfter: new Date(notBefore.getTime() + 730 * DAY_MS),
    });
    assert.deepEqual(await verdictFor([tooLong.certPem]), {
      ok: false,
      reason: 'LIFETIME_TOO_LONG',
    });
    assert.equal((await verdictFor([twoYears.certPem])).ok, true);
  });

  it('answers NOT_FOR_CLIENT_AUTH when the extended key usage lacks clientAuth', async () => {
    const serverOnly = await issueCertificate(ca, {
      commonName: 'server-only',
      usage: 'server',
      dnsNames: ['localhost'],
    });
    assert.deepEqual(await verdictFor([serverOnly.certPem]), {
      ok: false,
      reason: 'NOT_FOR_CLIENT_AUTH',
    });
  });

  it('refuses to build a validator from a bundle without certificates', () => {
    assert.throws(() => createClientCertificateValidator('not a bundle'), /no certificate/);
  });
});
