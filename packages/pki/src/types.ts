import type { QcStatementsOptions } from './validation/qc-statements.js';

/** A certificate and its private key, both PEM encoded (certificate: CERTIFICATE, key: PKCS#8 PRIVATE KEY). */
export interface PemPair {
  certPem: string;
  keyPem: string;
}

export type CertificateUsage = 'server' | 'client';

export interface CertificateAuthorityOptions {
  commonName: string;
  /** Defaults to ten years. */
  validDays?: number;
}

export interface IssueCertificateOptions {
  commonName: string;
  usage: CertificateUsage;
  dnsNames?: string[];
  ipAddresses?: string[];
  /** PSD2 organisation identifier (OID 2.5.4.97), e.g. PSDDE-BAFIN-123456. */
  organizationIdentifier?: string;
  notBefore?: Date;
  /** Defaults to one year after notBefore. */
  notAfter?: Date;
  /** Replaces the usage's default extended key usage; names (serverAuth, clientAuth, …) or dotted OIDs. */
  extendedKeyUsages?: string[];
  /** eIDAS QWAC markers: QcCompliance and the PSD2 roles statement (ETSI TS 119 495). */
  qcStatements?: QcStatementsOptions;
}
