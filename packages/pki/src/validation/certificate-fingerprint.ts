import { x509 } from '../x509.js';
import { sha256Hex } from './validate-client-certificate.js';

/** SHA-256 fingerprint (lowercase hex) of the first certificate in a PEM text, as validation reports it. */
export function certificateFingerprint(certificatePem: string): string {
  const [der] = x509.PemConverter.decode(certificatePem);
  if (der === undefined) throw new Error('no PEM certificate block');
  return sha256Hex(der);
}
