import { exportPrivateKeyPem, generateKeyPair, SIGNING_ALGORITHM } from './key-pair.js';
import { subjectName } from './distinguished-name.js';
import type { CertificateAuthorityOptions, PemPair } from './types.js';
import { CERTIFICATE_AUTHORITY_VALID_DAYS, validityWindow } from './validity.js';
import { x509 } from './x509.js';

/** Creates a self-signed root CA that may sign end-entity certificates only (path length 0). */
export async function createCertificateAuthority(
  options: CertificateAuthorityOptions,
): Promise<PemPair> {
  const validDays = options.validDays ?? CERTIFICATE_AUTHORITY_VALID_DAYS;
  if (!Number.isFinite(validDays) || validDays <= 0) {
    throw new RangeError('validDays must be a positive number');
  }
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validityWindow({ defaultValidDays: validDays });
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: subjectName(options.commonName),
    keys,
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certPem: certificate.toString('pem'),
    keyPem: await exportPrivateKeyPem(keys.privateKey),
  };
}
