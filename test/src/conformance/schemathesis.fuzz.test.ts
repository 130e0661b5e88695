import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { passesModulusCheck } from '@vop/contracts';
import { runEmbedded, type RunningEmbedded } from '../embedded/fixtures.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const hooks = path.join(repoRoot, 'test/fuzz/vop_hooks.py');
const config = path.join(repoRoot, 'test/fuzz/schemathesis.toml');

/** UK account numbers the modulus check accepts (the hooks give them to the fuzzer: no check digits in a pattern). */
function validUkPairs(count: number): string {
  const pairs: string[] = [];
  for (let candidate = 66_374_900; pairs.length < count; candidate++) {
    const accountNumber = String(candidate);
    if (passesModulusCheck('089999', accountNumber)) pairs.push(`08-99-99:${accountNumber}`);
  }
  return pairs.join(',');
}

/**
 * Issue 11, item 3: schemathesis (PyPI, installed by infra/local/schemathesis.sh) generates requests from the
 * served document for every operation, once as a participant and once as the admin, over mutual TLS.
 * Every check (test/fuzz/schemathesis.toml says which are left out where, and why); the hooks
 * (test/fuzz/vop_hooks.py) teach the fuzzer what a pattern cannot say (check digits, the clock).
 */
describe('schemathesis against the served OpenAPI document, over mutual TLS', () => {
  let service: RunningEmbedded;
  let schemathesis = '';
  let reports = '';
  before(async () => {
    schemathesis = (
      await run('bash', [path.join(repoRoot, 'infra/local/schemathesis.sh'), 'path'])
    ).stdout.trim();
    reports = await mkdtemp(path.join(os.tmpdir(), 'vop-fuzz-'));
    service = await runEmbedded({
      // The fuzzer tests the contract, not the budgets: these are tested in test/src/security.
      env: {
        VOP_RATE_LIMIT_TEST_PER_HOUR: '10000000',
        VOP_RATE_LIMIT_ADMIN_PER_MINUTE: '10000000',
        // Generated receivers are pointed at 127.0.0.1 by the hooks (no DNS here); nothing listens there.
        VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      },
    });
  });
  after(async () => {
    await service.stop();
    await rm(reports, { recursive: true, force: true });
  });

  for (const holder of ['participant', 'admin'] as const) {
    it(`as the ${holder}: no server error, no answer breaking the document, no documented-valid request refused`, async () => {
      const pki = service.service.pki;
      const [certificate, key] =
        holder === 'admin'
          ? [pki.adminCertPath, pki.adminKeyPath]
          : [pki.clientCertPath, pki.clientKeyPath];
      const junit = path.join(reports, `${holder}.xml`);
      const result = await run(
        schemathesis,
        [
          '--config-file',
          config,
          'run',
          `${service.service.url}/openapi.json`,
          '--tls-verify',
          pki.caPath,
          '--request-cert',
          certificate,
          '--request-cert-key',
          key,
          '--max-examples',
          '25',
          '--seed',
          '20261125',
          '--report',
          'junit',
          '--report-junit-path',
          junit,
          '--no-color',
        ],
        {
          env: {
            ...process.env,
            SCHEMATHESIS_HOOKS: hooks,
            VOP_FUZZ_UK_ACCOUNTS: validUkPairs(8),
          },
          maxBuffer: 64 * 1024 * 1024,
          // Its cache and reports stay out of the work tree.
          cwd: reports,
        },
      ).catch((error: { stdout?: string; code?: number }) => ({
        stdout: error.stdout ?? '',
        failed: error.code ?? 1,
      }));
      const output = result.stdout;
      const report = await readFile(junit, 'utf8');
      const failures = Number(/failures="(\d+)"/.exec(report)?.[1] ?? NaN);
      const errors = Number(/errors="(\d+)"/.exec(report)?.[1] ?? NaN);
      // The failures (what to reproduce) and the summary, not the warnings between them.
      const failuresAt = output.indexOf('FAILURES');
      const summary = `${failuresAt >= 0 ? output.slice(failuresAt, failuresAt + 6000) : ''}\n${output
        .split('\n')
        .slice(-25)
        .join('\n')}`;
      assert.equal(failures, 0, summary);
      // Which operations errored (network errors name no operation in the summary), and the first details.
      const errored = [
        ...report.matchAll(/<testcase[^>]*name="([^"]*)"[^>]*>(?:(?!<\/testcase>)[\s\S])*?<error/g),
      ]
        .map((match) => match[1])
        .join('\n');
      const errorsAt = output.indexOf('ERRORS');
      const errorDetails = errorsAt >= 0 ? output.slice(errorsAt, errorsAt + 4000) : '';
      assert.equal(errors, 0, `${errored}\n${errorDetails}\n${summary}`);
      assert.ok(!('failed' in result), summary);
      assert.match(output, /Tested:\s+\d+/);
    });
  }
});
