import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { referenceDataAnswered } from '../reference-data-ready.js';
import { runEmbedded, type RunningEmbedded } from './fixtures.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const cli = path.join(repoRoot, 'packages/conformance/dist/cli.js');

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('vop-conformance, the scheme suite from the command line (packages/conformance)', () => {
  let embedded: RunningEmbedded;
  before(async () => {
    embedded = await runEmbedded();
    const loaded = await embedded.client.post('/test/data/load', {
      dataSet: 'scheme_reference_data',
      version: '1.0.0',
    });
    assert.equal(loaded.status, 200, loaded.text);
    await referenceDataAnswered(embedded.client, 30_000);
  });
  after(async () => embedded?.stop());

  it('prints each case and the compliance by group, writes JUnit XML, exits 0 when all passed', async () => {
    const { pki } = embedded.service;
    const junit = path.join(embedded.dataDir, 'scheme-report.xml');
    const run = await runCli([
      '--target',
      embedded.service.url,
      '--ca',
      pki.caPath,
      '--cert',
      pki.clientCertPath,
      '--key',
      pki.clientKeyPath,
      '--group',
      'lei',
      '--junit',
      junit,
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stdout.match(/^PASS S139-L-\d\d /gm)?.length, 28);
    assert.match(run.stdout, /^\| lei \| 100\.0% \|$/m);
    assert.match(run.stdout, /^28 tests: 28 passed, 0 failed, 0 skipped$/m);
    const xml = await readFile(junit, 'utf8');
    assert.match(xml, /<testsuite name="scheme139-25.lei" tests="28" failures="0"/);
  });

  it('exits 1 and names what did not hold when a case fails', async () => {
    const { pki } = embedded.service;
    // The admin certificate is no scheme participant: every admitted case is refused 401.
    const run = await runCli([
      '--target',
      embedded.service.url,
      '--ca',
      pki.caPath,
      '--cert',
      pki.adminCertPath,
      '--key',
      pki.adminKeyPath,
      '--group',
      'name',
    ]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^FAIL S139-N-01 /m);
    assert.match(run.stdout, /status: expected 200, got 401/);
  });

  it('refuses a usage error with exit status 2', async () => {
    const run = await runCli(['--target', 'http://plain.example']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /required/);
  });
});
