import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  schemeIban,
  startScheme,
  type BankLauncher,
  type RunningScheme,
  type SchemeMember,
} from '@vop/embedded';
import { eventually, httpsClient, type ServiceProcess } from '@vop/testing';
import { recordedResults, runCurlCommand, tryCommandOf } from '../scheme-in-a-box.js';
import { startCluster } from './cluster.js';

interface ImmediateAnswer {
  match: boolean;
  reason?: string;
}

function whenOneEnds(processes: readonly ServiceProcess[]): Promise<string> {
  return Promise.race(
    processes.map(
      ({ name, child }) =>
        new Promise<string>((resolve) => {
          const how = () => `(${name}) ended: code ${child.exitCode}, signal ${child.signalCode}`;
          if (child.exitCode !== null || child.signalCode !== null) resolve(how());
          else child.once('exit', () => resolve(how()));
        }),
    ),
  );
}

/** Bank A as the distributed run: a gateway and every internal service, on PostgreSQL and Kafka. */
const distributedBank: BankLauncher = async (deployment) => {
  const cluster = await startCluster({
    prefix: 'scheme_bank_a',
    env: deployment.env,
    dataDir: deployment.dataDir,
    gatewayPort: deployment.port,
  });
  return { ended: whenOneEnds(cluster.processes), stop: () => cluster.stop() };
};

const firstAccountOf = (member: SchemeMember) => {
  const account = member.bank.accounts[0];
  if (account === undefined) throw new Error(`${member.bank.name} holds no account`);
  return { name: account.name, iban: schemeIban(member.bank.bankCode, account.accountNumber) };
};

const answered = (member: SchemeMember, iban: string, result: string) =>
  eventually(
    async () => ((await recordedResults(member, iban)).includes(result) ? true : undefined),
    { timeoutMs: 30_000, intervalMs: 250, what: `${member.bank.name} recording ${result}` },
  );

describe('the scheme in a box with bank A distributed (PostgreSQL, Kafka) and banks B and C embedded', () => {
  let rootDir: string;
  let scheme: RunningScheme;
  let bankA: SchemeMember;
  let bankB: SchemeMember;
  let bankC: SchemeMember;

  before(async () => {
    rootDir = await mkdtemp(path.join(os.tmpdir(), 'vop-scheme-distributed-'));
    scheme = await startScheme({
      rootDir,
      ports: [0, 0, 0],
      launchers: { 'bank-a': distributedBank },
      readyTimeoutMs: 180_000,
    });
    [bankA, bankB, bankC] = scheme.banks as [SchemeMember, SchemeMember, SchemeMember];
  });

  after(async () => {
    await scheme?.stop();
    await rm(rootDir, { recursive: true, force: true });
  });

  it("answers the try: line's check of a payee at bank B with a match that bank B answered", async () => {
    const payee = firstAccountOf(bankB);
    const answer = (await runCurlCommand(tryCommandOf(scheme.banner))) as ImmediateAnswer;
    assert.equal(answer.match, true, JSON.stringify(answer));
    await answered(bankB, payee.iban, 'MTCH');
  });

  it('asks bank C about a payee whose account bank C holds', async () => {
    const payee = firstAccountOf(bankC);
    const client = httpsClient({ baseUrl: bankA.url, ...bankA.participant });
    try {
      const answer = await client.post<ImmediateAnswer>('/api/verify', payee);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.match, true, answer.text);
    } finally {
      client.close();
    }
    await answered(bankC, payee.iban, 'MTCH');
  });

  it('answers a payee whose bank code no table holds as not a match', async () => {
    const client = httpsClient({ baseUrl: bankA.url, ...bankA.participant });
    try {
      const answer = await client.post<ImmediateAnswer>('/api/verify', {
        name: 'Nobody Known',
        iban: schemeIban('99999999', 4001),
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.match, false, answer.text);
      if (answer.body.reason !== undefined) assert.match(answer.body.reason, /^[A-Z_]+$/);
    } finally {
      client.close();
    }
  });
});
