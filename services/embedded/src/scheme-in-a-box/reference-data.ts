import type { SchemeDirectorySnapshot } from '@vop/contracts';
import { requestBank, type ClientTls } from './bank-request.js';
import { SCHEME_COUNTRY, schemeIban, type SchemeBank } from './banks.js';

/** A bank of the scheme where it listens. */
export interface PlacedBank {
  bank: SchemeBank;
  url: string;
}

export const SCHEME_SNAPSHOT_ID = 'scheme-in-a-box';
/** Where a bank's EPC inter-PSP API lives under its URL: the requester POSTs to `<uri>/payee-verifications`. */
export const EPC_API_BASE_PATH = '/vop/v1';
export const EPC_API_VERSION = '1.1.1';

/** Every bank, both roles, one endpoint each, in the environment of a test deployment (T). */
export function schemeDirectory(banks: readonly PlacedBank[], now: Date): SchemeDirectorySnapshot {
  return {
    snapshotId: SCHEME_SNAPSHOT_ID,
    publishedAt: now.toISOString(),
    participants: banks.map(({ bank, url }) => ({
      authorisationNumber: bank.authorisationNumber,
      name: bank.name,
      bics: [bank.bic],
      environment: 'T',
      roles: ['requesting', 'responding'],
      endpoints: [{ uri: `${url}${EPC_API_BASE_PATH}`, priority: 1, apiVersion: EPC_API_VERSION }],
    })),
  };
}

/** The bank-code table (the form of a national bank-code directory): an IBAN's bank code → BIC. */
export function bankCodeTable(banks: readonly PlacedBank[]): string {
  return [
    'country,bank_code,bic',
    ...banks.map(({ bank }) => `${SCHEME_COUNTRY},${bank.bankCode},${bank.bic}`),
  ].join('\n');
}

/** Why a load was refused, naming the bank and what was loaded. */
export class ReferenceDataError extends Error {
  constructor(bank: SchemeBank, what: string, status: number, text: string) {
    super(`${bank.name}: loading ${what} was answered ${status}: ${text.slice(0, 500)}`);
    this.name = 'ReferenceDataError';
  }
}

/**
 * Loads, with the bank's admin certificate, the directory and the bank-code table of the whole
 * scheme and the bank's own accounts. An account already held (a restart on the same data) is kept.
 */
export async function loadReferenceData(options: {
  target: PlacedBank;
  banks: readonly PlacedBank[];
  admin: ClientTls;
  now: Date;
}): Promise<void> {
  const { target, admin } = options;
  const send = async (load: {
    what: string;
    method: 'PUT' | 'POST';
    route: string;
    body: string;
    contentType?: string;
    /** An answer that means the data is there already. */
    alsoFine?: number;
  }) => {
    const answer = await requestBank(`${target.url}${load.route}`, admin, load);
    if (answer.status >= 300 && answer.status !== load.alsoFine)
      throw new ReferenceDataError(target.bank, load.what, answer.status, answer.text);
  };
  await send({
    what: 'the scheme directory',
    method: 'PUT',
    route: '/admin/scheme-directory',
    body: JSON.stringify(schemeDirectory(options.banks, options.now)),
  });
  await send({
    what: 'the bank-code table',
    method: 'PUT',
    route: `/admin/bank-codes?tableId=${SCHEME_SNAPSHOT_ID}`,
    body: bankCodeTable(options.banks),
    contentType: 'text/csv',
  });
  for (const account of target.bank.accounts) {
    const iban = schemeIban(target.bank.bankCode, account.accountNumber);
    await send({
      what: `the account ${account.accountNumber}`,
      method: 'POST',
      route: '/accounts',
      body: JSON.stringify({ iban, name: account.name, holderType: account.holderType }),
      // 409: an account held from an earlier start on the same data.
      alsoFine: 409,
    });
  }
}
