import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  PortInUseError,
  SCHEME_BANKS,
  schemeIban,
  startScheme,
  type RunningScheme,
  type SchemeMember,
} from '@vop/embedded';
import { eventually, httpsClient } from '@vop/testing';
import { recordedResults, runCurlCommand, shellWords, tryCommandOf } from '../scheme-in-a-box.js';

interface ImmediateAnswer {
  match: boolean;
  reason?: string;
}

const firstAccountOf = (member: SchemeMember) => {
  const account = member.bank.accounts[0];
  if (account === undefined) throw new Error(`${member.bank.name} holds no account`);
  return { name: account.name, iban: schemeIban(member.bank.bankCode, account.accountNumber) };
};

async function verifyAt(member: SchemeMember, payee: { name: string; iban: string }) {
  const client = httpsClient({ baseUrl: member.url, ...member.participant });
  try {
    const answer = await client.post<ImmediateAnswer>('/api/verify', payee);
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  } finally {
    client.close();
  }
}

const answered = (member: SchemeMember, iban: string, result: string) =>
  eventually(
    async () => ((await recordedResults(member, iban)).includes(result) ? true : undefined),
    { timeoutMs: 30_000, intervalMs: 250, what: `${member.bank.name} recording ${result}` },
  );

describe('the scheme in a box: three embedded banks on loopback', () => {
  let rootDir: string;
  let scheme: RunningScheme;
  let bankA: SchemeMember;
  let bankB: SchemeMember;
  let bankC: SchemeMember;

  before(async () => {
    rootDir = await mkdtemp(path.join(os.tmpdir(), 'vop-scheme-'));
    scheme = await startScheme({ rootDir, ports: [0, 0, 0] });
    [bankA, bankB, bankC] = scheme.banks as [SchemeMember, SchemeMember, SchemeMember];
  });

  after(async () => {
    await scheme?.stop();
    await rm(rootDir, { recursive: true, force: true });
  });

  it("prints each bank's URL and BIC and one try: line verifying at bank A with its participant certificate", () => {
    for (const member of scheme.banks) {
      assert.ok(scheme.banner.includes(member.url), member.bank.name);
      assert.ok(scheme.banner.includes(member.bank.bic), member.bank.name);
      assert.ok(scheme.banner.includes(member.pki.clientCertPath), member.bank.name);
    }
    const words = shellWords(tryCommandOf(scheme.banner));
    assert.equal(words.at(-1), `${bankA.url}/api/verify`);
    assert.equal(words[words.indexOf('--cert') + 1], bankA.pki.clientCertPath);
    assert.equal(words[words.indexOf('--cacert') + 1], bankA.pki.caPath);
  });

  it("answers the try: line's check of a payee at bank B with a match that bank B answered", async () => {
    const payee = firstAccountOf(bankB);
    const answer = (await runCurlCommand(tryCommandOf(scheme.banner))) as ImmediateAnswer;
    assert.equal(answer.match, true, JSON.stringify(answer));
    await answered(bankB, payee.iban, 'MTCH');
  });

  it('asks bank C about a payee whose account bank C holds', async () => {
    const payee = firstAccountOf(bankC);
    const answer = await verifyAt(bankA, payee);
    assert.equal(answer.match, true, JSON.stringify(answer));
    await answered(bankC, payee.iban, 'MTCH');
  });

  it('answers a payee whose bank code no table holds as not a match, with a reason', async () => {
    const answer = await verifyAt(bankA, {
      name: 'Nobody Known',
      iban: schemeIban('99999999', 4001),
    });
    assert.equal(answer.match, false, JSON.stringify(answer));
    if (answer.reason !== undefined) assert.match(answer.reason, /^[A-Z_]+$/);
  });

  it('stops the other banks when one dies, and says which', async () => {
    assert.ok(bankC.pid !== undefined);
    process.kill(bankC.pid, 'SIGKILL');
    assert.match(await scheme.bankEnded, /^Bank C ended by SIGKILL/);
    for (const member of [bankA, bankB]) {
      const client = httpsClient({ baseUrl: member.url, ...member.admin });
      await assert.rejects(client.get('/readyz'), { code: 'ECONNREFUSED' }, member.bank.name);
      client.close();
    }
  });
});

describe('the scheme in a box on ports already in use', () => {
  it('refuses to start, naming the port and the bank', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    const rootDir = await mkdtemp(path.join(os.tmpdir(), 'vop-scheme-ports-'));
    try {
      await assert.rejects(
        startScheme({ rootDir, ports: [0, port, 0] }),
        (error: unknown) =>
          error instanceof PortInUseError &&
          error.port === port &&
          error.message.includes(`${SCHEME_BANKS[1]?.name}`),
      );
    } finally {
      holder.close();
      await rm(rootDir, { recursive: true, force: true });
    }
  });
});
