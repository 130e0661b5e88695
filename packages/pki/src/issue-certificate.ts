import { isIP } from 'node:net';
import { extendedKeyUsageOids } from './extended-key-usage.js';
import { subjectName } from './distinguished-name.js';
import {
  exportPrivateKeyPem,
  generateKeyPair,
  importPrivateKeyPem,
  SIGNING_ALGORITHM,
} from './key-pair.js';
import type { IssueCertificateOptions, PemPair } from './types.js';
import { LEAF_CERTIFICATE_VALID_DAYS, validityWindow } from './validity.js';
import { encodeQcStatements, QC_STATEMENTS_OID } from './validation/qc-statements.js';
import { x509 } from './x509.js';

/** Issues an end-entity certificate with a fresh ECDSA P-256 key, signed by the given CA. */
export async function issueCertificate(
  ca: PemPair,
  options: IssueCertificateOptions,
): Promise<PemPair> {
  const caCertificate = new x509.X509Certificate(ca.certPem);
  const caSigningKey = await importPrivateKeyPem(ca.keyPem);
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validityWindow({
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    defaultValidDays: LEAF_CERTIFICATE_VALID_DAYS,
  });

  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension(
      extendedKeyUsageOids(options.usage, options.extendedKeyUsages),
    ),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(caCertificate.publicKey),
  ];
  if (options.qcStatements !== undefined) {
    extensions.push(
      new x509.Extension(QC_STATEMENTS_OID, false, encodeQcStatements(options.qcStatements)),
    );
  }
  const alternativeNames = subjectAlternativeNames(
    options.dnsNames ?? [],
    options.ipAddresses ?? [],
  );
  if (alternativeNames.length > 0) {
    extensions.push(new x509.SubjectAlternativeNameExtension(alternativeNames));
  }

  const certificate = await x509.X509CertificateGenerator.create({
    subject: subjectName(options.commonName, options.organizationIdentifier),
    issuer: caCertificate.subjectName,
    publicKey: keys.publicKey,
    signingKey: caSigningKey,
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions,
  });
  // A CA key that does not belong to the CA certificate would yield a chain no peer accepts; fail here instead.
  if (!(await certificate.verify({ publicKey: caCertificate.publicKey, signatureOnly: true }))) {
    throw new Error('the CA private key does not match the CA certificate');
  }
  return {
    certPem: certificate.toString('pem'),
    keyPem: await exportPrivateKeyPem(keys.privateKey),
  };
}

function subjectAlternativeNames(dnsNames: string[], ipAddresses: string[]): x509.JsonGeneralNames {
  for (const address of ipAddresses) {
    if (isIP(address) === 0) {
      throw new RangeError(`"${address}" is not an IP address`);
    }
  }
  return [
    ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
  ];
}
