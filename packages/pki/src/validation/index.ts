export type {
  CertificateInput,
  CertifiedParticipant,
  ClientCertificateCheck,
  ClientCertificateRejection,
  ClientCertificateVerdict,
} from './types.js';
export {
  createClientCertificateValidator,
  MAX_CLIENT_CERTIFICATE_LIFETIME_MS,
  sha256Hex,
  validateClientCertificate,
  type ClientCertificateValidator,
  type ClientCertificateValidatorOptions,
} from './validate-client-certificate.js';
export {
  encodeQcStatements,
  parseQcStatements,
  PSD2_QC_STATEMENT_OID,
  PSD2_ROLE_OIDS,
  QC_COMPLIANCE_OID,
  QC_STATEMENTS_OID,
  type Psd2Role,
  type QcStatementsOptions,
  type QcStatementsSummary,
} from './qc-statements.js';
export { certificateFingerprint } from './certificate-fingerprint.js';
