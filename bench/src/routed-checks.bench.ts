import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  launchEmbeddedBank,
  SCHEME_BANKS,
  schemeIban,
  startScheme,
  type BankLauncher,
  type SchemeMember,
} from '@vop/embedded';
import { eventually, httpsClient } from '@vop/testing';
import { pacedLoad, type PacedLoad } from './paced-load.js';
import { processCpuMs } from './process-cpu.js';
import { runContext } from './run-context.js';

/**
 * The requesting side (issue 40) on this machine: the scheme in a box (three embedded banks, one
 * test CA), then at bank A, in one run, --rate req/s of `POST /api/verify` for --seconds about payees
 * it holds (local) and about payees bank B holds (routed: A asks B over the EPC API), each with its
 * p50/p99 and the CPU per check of A's and B's processes; then a --batch-entry batch at A whose payees
 * are spread over the three banks, with its time to completion.
 */
const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '15' },
    'batch-entries': { type: 'string', default: '10000' },
  },
});
const rate = Number(flags.rate);
const seconds = Number(flags.seconds);
const batchEntries = Number(flags['batch-entries']);
const context = runContext();
process.stdout.write(`${context.header}\n`);

// One participant's load: lift the test budgets (6,000 a minute by default) on every bank, as a
// payee bank budgets the requesting bank like any participant.
const LIFTED = {
  LOG_LEVEL: 'warn',
  VOP_TEST_RATE_LIMITS: '{"default":100000000}',
  VOP_RATE_LIMIT_TEST_PER_HOUR: '100000000',
};
const lifted: BankLauncher = (deployment) =>
  launchEmbeddedBank({ ...deployment, env: { ...deployment.env, ...LIFTED } });
const rootDir = await mkdtemp(path.join(os.tmpdir(), 'vop-routed-bench-'));
const scheme = await startScheme({
  rootDir,
  ports: [0, 0, 0],
  launchers: Object.fromEntries(SCHEME_BANKS.map((bank) => [bank.key, lifted])),
});
try {
  const [bankA, bankB, bankC] = scheme.banks as [SchemeMember, SchemeMember, SchemeMember];
  const bodiesAt = (member: SchemeMember) =>
    member.bank.accounts.map((account) =>
      JSON.stringify({
        iban: schemeIban(member.bank.bankCode, account.accountNumber),
        name: account.name,
      }),
    );
  const client = httpsClient({ baseUrl: bankA.url, ...bankA.participant });
  // Every body of both kinds answers a match: a warm-up that proves the routing before measuring.
  for (const body of [...bodiesAt(bankA), ...bodiesAt(bankB)]) {
    const answer = await client.post('/api/verify', JSON.parse(body));
    if (answer.body?.match !== true) throw new Error(`warm-up did not match: ${answer.text}`);
  }

  /** Bank A's requester outcomes so far (`requester_requests_total` by outcome), from its /metrics. */
  const requesterOutcomes = async (): Promise<Record<string, number>> => {
    const text = (await client.get('/metrics')).text;
    const outcomes: Record<string, number> = {};
    for (const [, outcome, value] of text.matchAll(
      /^requester_requests_total\{[^}]*outcome="([^"]+)"[^}]*\} (\S+)$/gm,
    ))
      if (outcome !== undefined) outcomes[outcome] = (outcomes[outcome] ?? 0) + Number(value);
    return outcomes;
  };
  const measure = async (label: string, bodies: string[]) => {
    const pids = [bankA.pid, bankB.pid].map((pid) => pid ?? 0);
    const asked = await requesterOutcomes();
    const before = pids.map(processCpuMs);
    const load: PacedLoad = await pacedLoad({
      url: `${bankA.url}/api/verify`,
      rate,
      seconds,
      tls: bankA.participant,
      bodies,
    });
    const cpu = pids.map((pid, index) => processCpuMs(pid) - (before[index] ?? 0));
    // What bank B answered (or why not), so "answered" is not mistaken for "matched".
    const outcomes = Object.entries(await requesterOutcomes())
      .map(([outcome, count]) => [outcome, count - (asked[outcome] ?? 0)] as const)
      .filter(([, count]) => count > 0);
    const perCheck = (ms: number) => (ms / Math.max(1, load.sentInAll)).toFixed(3);
    process.stdout.write(
      `${label.padEnd(8)} offered ${rate}/s for ${seconds} s: sent ${load.sent}, answered ${load.answered}, ` +
        `errors ${load.errors} ${JSON.stringify(load.errorCodes)}, served ${load.answeredPerSecond.toFixed(0)}/s, ` +
        `p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, max ${load.max.toFixed(0)} ms; ` +
        `CPU per check: bank A ${perCheck(cpu[0] ?? 0)} ms, bank B ${perCheck(cpu[1] ?? 0)} ms; ` +
        `bank A's requester: ${JSON.stringify(Object.fromEntries(outcomes))}\n`,
    );
  };
  await measure('local', bodiesAt(bankA));
  await measure('routed', bodiesAt(bankB));

  // A batch at bank A, its payees at A, B and C in turn.
  const members = [bankA, bankB, bankC];
  const verifications = Array.from({ length: batchEntries }, (_, index) => {
    const member = members[index % members.length] as SchemeMember;
    const account = member.bank.accounts[index % member.bank.accounts.length];
    if (account === undefined) throw new Error('a scheme bank holds no account');
    return {
      id: `e${index}`,
      iban: schemeIban(member.bank.bankCode, account.accountNumber),
      name: account.name,
    };
  });
  const started = performance.now();
  const submitted = await client.post('/api/v1/batch', {
    batchId: 'routed-bench',
    verifications,
  });
  if (submitted.status >= 300) throw new Error(`batch refused: ${submitted.text}`);
  const status = await eventually(
    async () => {
      const read = await client.get('/api/v1/batch/routed-bench');
      return read.body?.status === 'COMPLETED' || read.body?.status === 'FAILED'
        ? read.body
        : undefined;
    },
    { timeoutMs: 600_000, intervalMs: 250, what: 'the batch to complete' },
  );
  const elapsed = (performance.now() - started) / 1000;
  const results = await client.get('/api/v1/batch/routed-bench/results');
  const byResult: Record<string, number> = {};
  for (const result of (results.body?.results ?? []) as Array<{ result: string }>)
    byResult[result.result] = (byResult[result.result] ?? 0) + 1;
  process.stdout.write(
    `batch    ${batchEntries} entries over banks A, B and C: ${status.status} in ${elapsed.toFixed(1)} s ` +
      `(${(batchEntries / elapsed).toFixed(0)} entries/s); progress ${JSON.stringify(status.progress)}; ` +
      `results ${JSON.stringify(byResult)}\n`,
  );
  client.close();
} finally {
  await scheme.stop();
  await rm(rootDir, { recursive: true, force: true });
}
process.stdout.write(`${context.footer()}\n`);
