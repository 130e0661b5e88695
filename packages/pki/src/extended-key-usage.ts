import type { CertificateUsage } from './types.js';
import { x509 } from './x509.js';

const DOTTED_OID = /^[0-2](\.(0|[1-9]\d*))+$/;

const KNOWN_USAGES: Readonly<Record<string, string>> = {
  serverAuth: x509.ExtendedKeyUsage.serverAuth,
  clientAuth: x509.ExtendedKeyUsage.clientAuth,
  codeSigning: x509.ExtendedKeyUsage.codeSigning,
  emailProtection: x509.ExtendedKeyUsage.emailProtection,
  timeStamping: x509.ExtendedKeyUsage.timeStamping,
  ocspSigning: x509.ExtendedKeyUsage.ocspSigning,
};

const DEFAULT_USAGE: Readonly<Record<CertificateUsage, string>> = {
  server: x509.ExtendedKeyUsage.serverAuth,
  client: x509.ExtendedKeyUsage.clientAuth,
};

/** Returns the extended key usage OIDs for a certificate: the override when given, else the usage's default. */
export function extendedKeyUsageOids(usage: CertificateUsage, overrides?: string[]): string[] {
  if (overrides === undefined) {
    return [DEFAULT_USAGE[usage]];
  }
  return overrides.map((entry) => {
    const oid = KNOWN_USAGES[entry] ?? entry;
    if (!DOTTED_OID.test(oid)) {
      throw new RangeError(
        `unknown extended key usage "${entry}": use a name such as clientAuth or a dotted OID`,
      );
    }
    return oid;
  });
}
