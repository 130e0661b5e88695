import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadReferenceData, runSchemeSuite } from '@vop/conformance';
import { loadConfig } from '@vop/config';
import { startEmbedded } from '@vop/embedded';
import { createLogger } from '@vop/observability';
import { eventually, httpsClient } from '@vop/testing';
import { runContext } from './run-context.js';

/**
 * The scheme139-25 suite (131 cases) on the embedded service, three ways in one run: through the
 * toolkit (POST /test/scheme/run: the loopback listener, each case recorded as an event), by the
 * runner straight against the public listener (what vop-conformance does), and for scale 131
 * verifications that reach matching (the reference person's MTCH, one connection; most suite cases
 * are refusals that never do). Everything runs in this one process.
 * Usage: node bench/dist/scheme-suite.bench.js [--rounds 3]
 */
const { values: flags } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(flags.rounds);
const context = runContext();
process.stdout.write(`${context.header}\n`);

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-bench-suite-'));
const service = await startEmbedded({
  config: loadConfig({
    VOP_DATA_DIR: dataDir,
    VOP_PORT: '0',
    LOG_LEVEL: 'silent',
    VOP_RATE_LIMIT_TEST_PER_HOUR: '100000',
  }),
  logger: createLogger({ service: 'bench', level: 'silent' }),
  inMemory: true,
});
const read = (file: string) => readFile(file, 'utf8');
const tls = {
  caPem: await read(service.pki.caPath),
  certPem: await read(service.pki.clientCertPath),
  keyPem: await read(service.pki.clientKeyPath),
};
const client = httpsClient({ baseUrl: service.url, ...tls });
try {
  const data = await loadReferenceData('1.0.0');
  await client.post('/test/data/load', { dataSet: 'scheme_reference_data', version: '1.0.0' });
  const probe = {
    party: { name: data.fixture.person.name },
    partyAccount: { iban: data.fixture.person.iban },
    partyAgent: { financialInstitutionId: { bicfi: data.fixture.responderBic } },
    requestingAgent: { financialInstitutionId: { bicfi: data.fixture.requesterBic } },
  };
  await eventually(
    async () =>
      (await client.post('/vop/verify', probe)).body.partyNameMatch === 'MTCH' ? 1 : undefined,
    { timeoutMs: 30_000, what: 'reference data in matching' },
  );
  const toolkit: number[] = [];
  const direct: number[] = [];
  const checks: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = await client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: true,
    });
    const report = await eventually(
      async () => {
        const answer = await client.get(`/test/scheme/report/${started.body.testRunId}`);
        return answer.body.status === 'running' ? undefined : answer.body;
      },
      { timeoutMs: 300_000, intervalMs: 100, what: 'the toolkit run' },
    );
    if (report.summary.passed !== 131)
      throw new Error(`toolkit run: ${JSON.stringify(report.summary)}`);
    toolkit.push(Date.parse(report.endedAt) - Date.parse(report.startedAt));

    const directStart = performance.now();
    const directReport = await runSchemeSuite({
      target: { baseUrl: service.url, caPem: tls.caPem, participant: tls },
      fixture: data.fixture,
    });
    direct.push(performance.now() - directStart);
    if (directReport.summary.failed !== 0) throw new Error('direct run failed a case');

    const checksStart = performance.now();
    for (let request = 0; request < 131; request++) await client.post('/vop/verify', probe);
    checks.push(performance.now() - checksStart);
  }
  const rows = [
    ['toolkit (POST /test/scheme/run, loopback, events)', median(toolkit)],
    ['runner against the public listener (vop-conformance)', median(direct)],
    ['131 MTCH verifications through matching, one connection', median(checks)],
  ] as const;
  const table = [
    `| path | suite ms (median of ${rounds}) | ms a case | × 131 checks |`,
    '|---|---:|---:|---:|',
    ...rows.map(
      ([name, ms]) =>
        `| ${name} | ${ms.toFixed(0)} | ${(ms / 131).toFixed(1)} | ${(ms / median(checks)).toFixed(2)} |`,
    ),
  ].join('\n');
  process.stdout.write(`\n${table}\n\n${context.footer()}\n`);
} finally {
  client.close();
  await service.stop();
  await rm(dataDir, { recursive: true, force: true });
}
