import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { germanIban } from '@vop/testing';
import { runEmbedded, type RunningEmbedded } from './fixtures.js';

const cli = path.join(
  path.dirname(fileURLToPath(import.meta.resolve('@vop/import-cli'))),
  'cli.js',
);

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('vop-import, the command-line client, against the embedded run', () => {
  let embedded: RunningEmbedded;
  let dir: string;
  before(async () => {
    embedded = await runEmbedded();
    dir = await mkdtemp(path.join(os.tmpdir(), 'vop-import-cli-'));
  });
  after(async () => {
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('uploads a CSV file over mutual TLS with the admin certificate and prints the summary; a refused row makes the exit status 2', async () => {
    const file = path.join(dir, 'accounts.csv');
    await writeFile(
      file,
      [
        'iban,name,holderType,alternateNames,identifiers,status',
        `${germanIban(920_001)},Cli Holder One,person,,,`,
        `${germanIban(920_002)},Cli Holder Two GmbH,organisation,Two Trading,LEI:5299009N55YRQC69CN18,`,
        `${germanIban(920_003)},Cli Holder Three,,,,closed`,
        'DE00BAD,Cli Bad Row,,,,',
      ].join('\n'),
    );
    const args = [file, '--url', embedded.service.url, '--data-dir', embedded.dataDir];
    const first = await runCli([...args, '--no-progress']);
    assert.equal(first.code, 2, first.stderr);
    assert.match(first.stdout, /: COMPLETED/);
    assert.match(first.stdout, /read 4 {2}created 3 {2}updated 0 {2}unchanged 0 {2}failed 1/);
    assert.match(first.stdout, /row 4: iban INVALID_IBAN/);
    assert.equal(first.stdout.includes('Cli Bad Row'), false);

    const again = await runCli([...args, '--no-progress']);
    assert.match(again.stdout, /created 0 {2}updated 0 {2}unchanged 3 {2}failed 1/);
  });

  it('says why it cannot run: a missing certificate is an exit status 1', async () => {
    const result = await runCli([path.join(dir, 'none.ndjson'), '--url', embedded.service.url]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /--ca \(or --data-dir\) is required/);
  });
});
