import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DevPki } from '@vop/pki';
import { requestBank, type ClientTls } from './bank-request.js';
import { bankSettings } from './bank-settings.js';
import { launchEmbeddedBank, type BankLauncher, type LaunchedBank } from './bank-process.js';
import { SCHEME_BANKS, schemeIban, type SchemeBank } from './banks.js';
import { schemeBanner, tryCommand } from './banner.js';
import { claimPorts } from './ports.js';
import { loadReferenceData } from './reference-data.js';
import { ensureBankPki, ensureSchemeCa } from './scheme-pki.js';

export const DEFAULT_SCHEME_DIR = '.vop-scheme';
export const DEFAULT_SCHEME_PORTS: readonly number[] = [9441, 9442, 9443];
/** A first start creates three databases on a shared machine; a bank not ready by then is reported. */
const DEFAULT_READY_TIMEOUT_MS = 120_000;

export interface SchemeOptions {
  /** Holds the scheme CA (`<root>/pki`) and each bank's data folder (`<root>/<bank key>`). */
  rootDir?: string;
  /** One per bank, in SCHEME_BANKS order; 0 picks a free port. */
  ports?: readonly number[];
  /** Starts a bank some other way than the embedded default (e.g. distributed), by bank key. */
  launchers?: Readonly<Record<string, BankLauncher>>;
  readyTimeoutMs?: number;
  clock?: () => Date;
  /** Aborted while the banks start: those started are stopped and the start fails. */
  signal?: AbortSignal;
}

/** A bank of the running scheme, with the clients' TLS material its certificates give. */
export interface SchemeMember {
  bank: SchemeBank;
  url: string;
  dataDir: string;
  pki: DevPki;
  logPath?: string;
  /** The bank's process, when it is one (the embedded default). */
  pid?: number;
  /** The scheme CA and the bank's participant certificate (its customers' channel, its requester). */
  participant: ClientTls;
  /** The scheme CA and the bank's admin certificate. */
  admin: ClientTls;
}

export interface RunningScheme {
  banks: SchemeMember[];
  caPath: string;
  /** Everything to print, ending with the `try: ` line. */
  banner: string;
  /** The curl command of the `try: ` line. */
  tryCommand: string;
  /**
   * Settles when a bank ends while the scheme runs (not by stop()), once the others are stopped,
   * saying which and how.
   */
  bankEnded: Promise<string>;
  /** Stops every bank; once is enough, later calls wait for the first. */
  stop(): Promise<void>;
}

/**
 * Starts the scheme in a box: one test CA, three banks on loopback each with its own BIC,
 * certificates and accounts, and on each the directory and bank-code table of all three.
 */
export async function startScheme(options: SchemeOptions = {}): Promise<RunningScheme> {
  const rootDir = path.resolve(options.rootDir ?? DEFAULT_SCHEME_DIR);
  const clock = options.clock ?? (() => new Date());
  const askedPorts = options.ports ?? DEFAULT_SCHEME_PORTS;
  if (askedPorts.length !== SCHEME_BANKS.length)
    throw new RangeError(`the scheme needs ${SCHEME_BANKS.length} ports, got ${askedPorts.length}`);
  const ports = await claimPorts(
    SCHEME_BANKS.map((bank, index) => ({ port: askedPorts[index] ?? 0, holder: bank.name })),
  );
  await mkdir(rootDir, { recursive: true });
  const ca = await ensureSchemeCa(rootDir);
  const prepared = await Promise.all(
    SCHEME_BANKS.map(async (bank, index) => {
      const dataDir = path.join(rootDir, bank.key);
      await mkdir(dataDir, { recursive: true });
      const pki = await ensureBankPki(dataDir, ca, bank);
      const port = ports[index] as number;
      return { bank, port, url: `https://127.0.0.1:${port}`, dataDir, pki };
    }),
  );

  const launched: { member: SchemeMember; running: LaunchedBank }[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= Promise.all(launched.map(({ running }) => running.stop())).then(() => undefined);
    return stopping;
  };
  try {
    // Side by side: a first start spends most of its time creating each bank's database.
    const launches = await Promise.allSettled(
      prepared.map(async (deployment) => {
        const launch = options.launchers?.[deployment.bank.key] ?? launchEmbeddedBank;
        const running = await launch({ ...deployment, env: bankSettings(deployment) });
        const member: SchemeMember = {
          ...deployment,
          ...(running.logPath !== undefined && { logPath: running.logPath }),
          ...(running.pid !== undefined && { pid: running.pid }),
          ...(await clientTls(deployment.pki)),
        };
        launched.push({ member, running });
      }),
    );
    const refused = launches.find((launch) => launch.status === 'rejected');
    if (refused !== undefined) throw refused.reason;
    // In SCHEME_BANKS order (bank A first), whichever was launched first.
    const rank = (entry: { member: SchemeMember }) => SCHEME_BANKS.indexOf(entry.member.bank);
    launched.sort((one, other) => rank(one) - rank(other));
    const timeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    await Promise.all(launched.map((entry) => untilReady(entry, timeoutMs, options.signal)));
    const placed = launched.map(({ member }) => member);
    const now = clock();
    await Promise.all(
      placed.map((target) =>
        loadReferenceData({ target, banks: placed, admin: target.admin, now }),
      ),
    );
    options.signal?.throwIfAborted();
  } catch (error) {
    await stop();
    throw error;
  }

  const banks = launched.map(({ member }) => member);
  const [from, payeeBank] = banks as [SchemeMember, SchemeMember];
  const payee = payeeBank.bank.accounts[0] as SchemeBank['accounts'][number];
  const command = tryCommand(from, {
    name: payee.name,
    iban: schemeIban(payeeBank.bank.bankCode, payee.accountNumber),
  });
  // A bank that ends on its own leaves a scheme that cannot route: the others are stopped too.
  const bankEnded = Promise.race(
    launched.map(({ member, running }) =>
      running.ended.then((how) =>
        stopping === undefined
          ? stop().then(() => `${member.bank.name} ${how}`)
          : new Promise<string>(() => {}),
      ),
    ),
  );
  return {
    banks,
    caPath: ca.certPath,
    banner: schemeBanner({
      banks,
      caPath: ca.certPath,
      tryLine: command,
      from: from.bank,
      payeeBank: payeeBank.bank,
    }),
    tryCommand: command,
    bankEnded,
    stop,
  };
}

async function clientTls(pki: DevPki): Promise<{ participant: ClientTls; admin: ClientTls }> {
  const read = (file: string): Promise<string> => readFile(file, 'utf8');
  const [caPem, certPem, keyPem, adminCertPem, adminKeyPem] = await Promise.all([
    read(pki.caPath),
    read(pki.clientCertPath),
    read(pki.clientKeyPath),
    read(pki.adminCertPath),
    read(pki.adminKeyPath),
  ]);
  return {
    participant: { caPem, certPem, keyPem },
    admin: { caPem, certPem: adminCertPem, keyPem: adminKeyPem },
  };
}

/** Waits for the bank's /readyz to answer 200; fails at once when it ends, with its last output. */
async function untilReady(
  entry: { member: SchemeMember; running: LaunchedBank },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { member, running } = entry;
  let ended: string | undefined;
  void running.ended.then((how) => (ended = how));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    if (ended !== undefined)
      throw new Error(`${member.bank.name} ${ended} before it was ready${await logTail(member)}`);
    const answer = await requestBank(`${member.url}/readyz`, member.admin, {
      method: 'GET',
      timeoutMs: 2_000,
    }).catch(() => undefined);
    if (answer?.status === 200) return;
    if (Date.now() > deadline)
      throw new Error(
        `${member.bank.name} was not ready within ${timeoutMs / 1000} s${await logTail(member)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function logTail(member: SchemeMember): Promise<string> {
  if (member.logPath === undefined) return '';
  const handle = await open(member.logPath, 'r').catch(() => undefined);
  if (handle === undefined) return '';
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 4_000);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    return `; the end of its log (${member.logPath}):\n${buffer.toString('utf8')}`;
  } finally {
    await handle.close();
  }
}
