import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadReferenceData } from '@vop/conformance';
import { eventually } from '@vop/testing';
import { referenceDataAnswered } from '../reference-data-ready.js';
import { runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const cli = path.join(repoRoot, 'packages/conformance/dist/cli.js');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The command running: what it has written to stderr so far, and its end. */
function startCli(args: string[]): { stderr: () => string; ended: Promise<CliRun> } {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { stderr: () => stderr, ended };
}

const runCli = (args: string[]): Promise<CliRun> => startCli(args).ended;

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

  it('exits 0 when nothing failed, the skipped cases counted apart with why; 1 with --fail-on-skip', async () => {
    const { pki } = embedded.service;
    const args = [
      '--target',
      embedded.service.url,
      '--ca',
      pki.caPath,
      '--cert',
      pki.clientCertPath,
      '--key',
      pki.clientKeyPath,
      '--group',
      'bic',
      '--data-version',
      '1.0',
    ];
    // No non-participant certificate given: the cases that present one are skipped.
    const run = await runCli(args);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const skipped = Number(
      /^32 tests: \d+ passed, 0 failed, (\d+) skipped$/m.exec(run.stdout)?.[1],
    );
    assert.ok(skipped > 0, run.stdout);
    assert.match(
      run.stdout,
      new RegExp(`^skipped ${skipped}: no non-participant certificate given$`, 'm'),
    );
    assert.equal(run.stdout.match(/^SKIP /gm)?.length, skipped);
    const strict = await runCli([...args, '--fail-on-skip']);
    assert.equal(strict.code, 1, strict.stdout + strict.stderr);
  });

  it('waits for the reference data to be answered before its first case, as the toolkit does', async () => {
    const reset = await embedded.client.post('/test/environment/reset', {
      resetDatabase: true,
      reloadTestData: false,
    });
    assert.equal(reset.status, 200, reset.text);
    const { fixture } = await loadReferenceData();
    await eventually(
      async () => {
        const answer = await embedded.client.post(
          '/vop/verify',
          schemeRequest(fixture.person.name, fixture.person.iban),
        );
        return answer.body.partyNameMatch === 'NOAP' ? true : undefined;
      },
      { what: 'the reference person to be gone' },
    );
    const { pki } = embedded.service;
    const child = startCli([
      '--target',
      embedded.service.url,
      '--ca',
      pki.caPath,
      '--cert',
      pki.clientCertPath,
      '--key',
      pki.clientKeyPath,
      '--group',
      'name',
      '--wait-for-data',
      '120',
    ]);
    // The data arrives while the command waits: loaded only once it says it is waiting.
    await eventually(
      async () => (/^Waiting up to 120 s/m.test(child.stderr()) ? true : undefined),
      {
        timeoutMs: 60_000,
        what: 'the command to wait for the reference data',
      },
    );
    const loaded = await embedded.client.post('/test/data/load', {
      dataSet: 'scheme_reference_data',
      version: 'latest',
    });
    assert.equal(loaded.body.loaded, 6, loaded.text);
    const run = await child.ended;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^45 tests: 45 passed, 0 failed, 0 skipped$/m);
  });

  it('refuses a usage error with exit status 2', async () => {
    const run = await runCli(['--target', 'http://plain.example']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /required/);
  });
});
