export type {
  CertificateAuthorityOptions,
  CertificateUsage,
  IssueCertificateOptions,
  PemPair,
} from './types.js';
export { createCertificateAuthority } from './certificate-authority.js';
export { issueCertificate } from './issue-certificate.js';
export { ORGANIZATION_IDENTIFIER_OID } from './distinguished-name.js';
export {
  DEV_ADMIN_COMMON_NAME,
  DEV_ADMIN_ORGANIZATION_IDENTIFIER,
  DEV_CA_COMMON_NAME,
  DEV_PARTICIPANT_COMMON_NAME,
  DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
  DEV_SERVER_COMMON_NAME,
  ensureDevPki,
} from './dev-pki.js';
export type { DevPki, DevPkiOptions } from './dev-pki.js';
export { DEV_PKCS12_PASSWORD } from './pkcs12.js';
export * from './validation/index.js';
