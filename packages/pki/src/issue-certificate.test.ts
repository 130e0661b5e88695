import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createCertificateAuthority } from './certificate-authority.js';
import { ORGANIZATION_IDENTIFIER_OID } from './distinguished-name.js';
import { issueCertificate } from './issue-certificate.js';
import type { IssueCertificateOptions, PemPair } from './types.js';
import { x509 } from './x509.js';

describe('issueCertificate', () => {
  let ca: PemPair;

  before(async () => {
    ca = await createCertificateAuthority({ commonName: 'Test CA', validDays: 30 });
  });

  it('puts a PSD2 organisation identifier in the subject under OID 2.5.4.97', async () => {
    const issued = await issueCertificate(ca, {
      commonName: 'Example Bank',
      usage: 'client',
      organizationIdentifier: 'PSDDE-BAFIN-123456',
    });
    const cert = new x509.X509Certificate(issued.certPem);
    assert.deepEqual(cert.subjectName.getField(ORGANIZATION_IDENTIFIER_OID), [
      'PSDDE-BAFIN-123456',
    ]);
    assert.deepEqual(cert.subjectName.getField('CN'), ['Example Bank']);
  });

  it('signs with the CA key and names the CA as issuer', async () => {
    const issued = await issueCertificate(ca, {
      commonName: 'leaf',
      usage: 'server',
      dnsNames: ['vop.example'],
    });
    const caCert = new NodeX509Certificate(ca.certPem);
    const leaf = new NodeX509Certificate(issued.certPem);
    assert.equal(leaf.checkIssued(caCert), true);
    assert.equal(leaf.verify(caCert.publicKey), true);
    assert.equal(leaf.checkHost('vop.example'), 'vop.example');
    assert.equal(leaf.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it('exports the private key as PKCS#8 PEM matching the certificate', async () => {
    const issued = await issueCertificate(ca, { commonName: 'leaf', usage: 'client' });
    assert.match(issued.keyPem, /^-----BEGIN PRIVATE KEY-----/);
    const leaf = new NodeX509Certificate(issued.certPem);
    assert.equal(leaf.checkPrivateKey(createPrivateKey(issued.keyPem)), true);
  });

  it('honours an explicit validity window and extended key usage override', async () => {
    const notBefore = new Date('2030-01-01T00:00:00Z');
    const notAfter = new Date('2033-01-01T00:00:00Z');
    const issued = await issueCertificate(ca, {
      commonName: 'too-long-lived',
      usage: 'client',
      notBefore,
      notAfter,
      extendedKeyUsages: ['serverAuth', '1.3.6.1.5.5.7.3.2'],
    });
    const cert = new x509.X509Certificate(issued.certPem);
    assert.equal(cert.notBefore.getTime(), notBefore.getTime());
    assert.equal(cert.notAfter.getTime(), notAfter.getTime());
    assert.deepEqual(
      [...(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])],
      [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth],
    );
  });

  it('rejects inputs that would produce a broken certificate', async () => {
    const invalidOptions: IssueCertificateOptions[] = [
      { commonName: 'x', usage: 'server', ipAddresses: ['localhost'] },
      { commonName: 'x', usage: 'client', extendedKeyUsages: ['anything'] },
      {
        commonName: 'x',
        usage: 'client',
        notBefore: new Date(2030, 0, 1),
        notAfter: new Date(2029, 0, 1),
      },
    ];
    for (const options of invalidOptions) {
      await assert.rejects(issueCertificate(ca, options), RangeError, JSON.stringify(options));
    }
    await assert.rejects(issueCertificate(ca, { commonName: ' ', usage: 'client' }), RangeError);
  });

  it('refuses a CA key that does not belong to the CA certificate', async () => {
    const otherCa = await createCertificateAuthority({ commonName: 'Other CA' });
    await assert.rejects(
      issueCertificate(
        { certPem: ca.certPem, keyPem: otherCa.keyPem },
        { commonName: 'x', usage: 'client' },
      ),
      /does not match/,
    );
  });
});
