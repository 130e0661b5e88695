import { DEV_PKCS12_PASSWORD, type DevPki } from '@vop/pki';
import { schemeIban, type SchemeBank } from './banks.js';

/** A started bank as the banner shows it. */
export interface BankView {
  bank: SchemeBank;
  url: string;
  pki: DevPki;
  logPath?: string;
}

/** A shell word: as it is when plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w/.:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A check at `from`'s immediate family (POST /api/verify) with its participant certificate. */
export function tryCommand(from: BankView, payee: { name: string; iban: string }): string {
  return [
    'curl',
    '--cacert',
    from.pki.caPath,
    '--cert',
    from.pki.clientCertPath,
    '--key',
    from.pki.clientKeyPath,
    '-H',
    'Content-Type: application/json',
    '-d',
    JSON.stringify({ name: payee.name, iban: payee.iban }),
    `${from.url}/api/verify`,
  ]
    .map(shellWord)
    .join(' ');
}

/** What `pnpm start:scheme` prints once every bank is ready and loaded; ends with the `try: ` line. */
export function schemeBanner(options: {
  banks: readonly BankView[];
  caPath: string;
  tryLine: string;
  from: SchemeBank;
  payeeBank: SchemeBank;
}): string {
  const lines = [
    '',
    `Scheme in a box: ${options.banks.length} banks on this machine, one test CA (${options.caPath})`,
  ];
  for (const { bank, url, pki, logPath } of options.banks) {
    lines.push(
      '',
      `  ${bank.name}  ${url}  BIC ${bank.bic}  bank code ${bank.bankCode}  (${bank.authorisationNumber})`,
      `    participant certificate: ${pki.clientCertPath}  key ${pki.clientKeyPath}`,
      `    admin certificate:       ${pki.adminCertPath}  key ${pki.adminKeyPath}`,
      ...(pki.clientP12Path !== undefined
        ? [
            `    for a browser:           ${pki.clientP12Path} (the /test page; password ${DEV_PKCS12_PASSWORD})`,
          ]
        : []),
      ...(logPath !== undefined ? [`    log:                     ${logPath}`] : []),
      `    accounts: ${bank.accounts
        .map((account) => `${account.name} ${schemeIban(bank.bankCode, account.accountNumber)}`)
        .join(', ')}`,
    );
  }
  lines.push(
    '',
    `A customer of ${options.from.name} checks a payee whose account ${options.payeeBank.name} holds:`,
    `${options.from.name} finds ${options.payeeBank.name} by the IBAN's bank code and asks it over the EPC API.`,
    `try: ${options.tryLine}`,
    '',
  );
  return lines.join('\n');
}
