import type { DevPki } from '@vop/pki';
import type { SchemeBank } from './banks.js';

/**
 * The settings of one bank's deployment. Its own BIC answers locally; every other goes to the bank
 * the scheme directory names, asked with the bank's participant certificate (the requester's
 * settings) and trusting the scheme CA. The server and admin certificates come from the data
 * folder's development PKI, which ensureBankPki issued from the scheme CA.
 */
export function bankSettings(options: {
  bank: SchemeBank;
  port: number;
  dataDir: string;
  pki: DevPki;
}): Record<string, string> {
  const { bank, pki } = options;
  return {
    VOP_HOST: '127.0.0.1',
    VOP_PORT: String(options.port),
    VOP_DATA_DIR: options.dataDir,
    VOP_ENVIRONMENT: 'test',
    VOP_PROFILE: 'development',
    VOP_RESPONDING_PSP: bank.bic,
    VOP_OWN_BICS: bank.bic,
    VOP_REQUESTER_CERT: pki.clientCertPath,
    VOP_REQUESTER_KEY: pki.clientKeyPath,
    VOP_REQUESTER_CA: pki.caPath,
  };
}
