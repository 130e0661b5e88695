import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runBatch, type BatchStatus } from '@vop/batch-cli';
import { germanIban } from '@vop/testing';
import {
  accountsKnownToDeciders,
  participantTls,
  runEmbedded,
  type RunningEmbedded,
} from './fixtures.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const cliMain = path.join(repoRoot, 'packages/batch-cli/dist/main.js');
const holder = { iban: germanIban(830_001), name: 'Erika Mustermann' };

describe('vop-batch, the command-line client (packages/batch-cli), against the embedded service', () => {
  let running: RunningEmbedded;
  before(async () => {
    running = await runEmbedded();
    assert.equal((await running.admin.post('/accounts', holder)).status, 201);
    await accountsKnownToDeciders(running, [holder.iban]);
  });
  after(async () => running?.stop());

  const csv = (count: number) =>
    [
      'id,iban,name',
      ...Array.from(
        { length: count },
        (_, i) => `row-${i},${holder.iban},"${i % 2 ? 'Max Other' : holder.name}"`,
      ),
    ].join('\n');

  it('uploads a CSV file, follows the progress, writes the results as CSV', async () => {
    const file = path.join(running.dataDir, 'entries.csv');
    const out = path.join(running.dataDir, 'entries-results.csv');
    await writeFile(file, csv(20));
    const seen: BatchStatus[] = [];
    const tls = await participantTls(running.service.pki);
    const final = await runBatch({
      url: running.service.url,
      ...tls,
      file,
      batchId: 'cli-1',
      out,
      pollIntervalMs: 20,
      onProgress: (status) => seen.push(status),
    });
    assert.equal(final.status, 'COMPLETED');
    assert.ok(seen.length >= 1);
    assert.equal(seen.at(-1)?.progress.processed, 20);
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    assert.equal(lines[0], 'id,result,confidence,reason,matchedName');
    assert.equal(lines.length, 21);
    assert.equal(lines[1], 'row-0,MATCH,HIGH,,');
    assert.match(lines[2] ?? '', /^row-1,NO_MATCH,LOW,NAME_MISMATCH,/);
  });

  it('writes CSV cells that would start a formula (=, +, -, @) quoted, a quote before them (OWASP)', async () => {
    const file = path.join(running.dataDir, 'formulas.csv');
    const out = path.join(running.dataDir, 'formulas-results.csv');
    const ids = ['=1+1', '+1+1', '-1+1', '@SUM(1+1)'];
    await writeFile(
      file,
      ['id,iban,name', ...ids.map((id) => `"${id}",${holder.iban},${holder.name}`)].join('\n'),
    );
    const tls = await participantTls(running.service.pki);
    const final = await runBatch({
      url: running.service.url,
      ...tls,
      file,
      batchId: 'cli-formulas',
      out,
      pollIntervalMs: 20,
    });
    assert.equal(final.status, 'COMPLETED');
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    assert.deepEqual(lines, [
      'id,result,confidence,reason,matchedName',
      ...ids.map((id) => `"'${id}",MATCH,HIGH,,`),
    ]);
  });

  it('the vop-batch command shows a progress bar and writes JSON results', async () => {
    const file = path.join(running.dataDir, 'entries.ndjson');
    const out = path.join(running.dataDir, 'results.json');
    const lines = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({ id: `n-${i}`, iban: holder.iban, name: holder.name }),
    );
    await writeFile(file, lines.join('\n'));
    const pki = running.service.pki;
    const child = spawn(process.execPath, [
      cliMain,
      '--url',
      running.service.url,
      '--ca',
      pki.caPath,
      '--cert',
      pki.clientCertPath,
      '--key',
      pki.clientKeyPath,
      '--batch-id',
      'cli-2',
      '--out',
      out,
      file,
    ]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, output);
    assert.match(output, /COMPLETED: 5 answered, 0 failed/);
    const results = JSON.parse(await readFile(out, 'utf8'));
    assert.equal(results.batchId, 'cli-2');
    assert.equal(results.results.length, 5);
    assert.ok(results.results.every((r: { result: string }) => r.result === 'MATCH'));
  });

  it('a refused upload ends with the error and a non-zero exit', async () => {
    const file = path.join(running.dataDir, 'bad.csv');
    await writeFile(file, 'id,iban,name\n1,DE00BAD,Someone\n');
    const pki = running.service.pki;
    const child = spawn(process.execPath, [
      cliMain,
      '--url',
      running.service.url,
      '--ca',
      pki.caPath,
      '--cert',
      pki.clientCertPath,
      '--key',
      pki.clientKeyPath,
      file,
    ]);
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(output, /INVALID_IBAN/);
  });
});
