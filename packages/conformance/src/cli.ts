#!/usr/bin/env node
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { junitXml } from './compliance-report.js';
import {
  isReferenceDataVersion,
  loadReferenceData,
  ReferenceDataSet,
  REFERENCE_DATA_VERSIONS,
} from './reference-data.js';
import { SCHEME_SUITE_CASES, SCHEME_SUITE_NAME } from './scheme-suite/index.js';
import { runSchemeSuite, type SchemeSuiteReport } from './suite-run.js';

const USAGE = `vop-conformance: runs the ${SCHEME_SUITE_NAME} suite (131 cases) against a responder's EPC path

  vop-conformance --target https://psp.example:8443 --ca ca.pem --cert client.pem --key client-key.pem
                  [--non-participant-cert p.pem --non-participant-key p-key.pem]
                  [--data-version ${REFERENCE_DATA_VERSIONS.join('|')} | --data my-reference-data.json]
                  [--junit report.xml] [--json report.json] [--group name|bic|lei|id]

The responder must hold the accounts of the reference data set (POST /test/data/load on this
service; another PSP loads the same accounts, or passes its own data set with --data).
Exit status: 0 when every case passed, 1 when one failed, 2 on a usage error.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function printReport(report: SchemeSuiteReport): void {
  const out: string[] = [];
  for (const result of report.cases) {
    const mark = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' }[result.outcome];
    out.push(`${mark} ${result.id} ${result.description}`);
    for (const failure of result.failures) out.push(`       ${failure}`);
  }
  const { summary, compliance } = report;
  out.push('', `| group | compliance |`, `|---|---|`);
  for (const [group, share] of Object.entries(compliance.byGroup))
    out.push(`| ${group} | ${share} |`);
  out.push(
    `| overall | ${compliance.overall} |`,
    '',
    `${summary.totalTests} tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

const { values } = parseArgs({
  options: {
    target: { type: 'string' },
    ca: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
    'non-participant-cert': { type: 'string' },
    'non-participant-key': { type: 'string' },
    'data-version': { type: 'string' },
    data: { type: 'string' },
    junit: { type: 'string' },
    json: { type: 'string' },
    group: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const { target, ca, cert, key } = values;
if (!target || !ca || !cert || !key) fail('--target, --ca, --cert and --key are required');
if (!target.startsWith('https://')) fail('--target must be an https:// URL (mutual TLS)');
const version = values['data-version'] ?? REFERENCE_DATA_VERSIONS[0];
if (!isReferenceDataVersion(version))
  fail(`--data-version: one of ${REFERENCE_DATA_VERSIONS.join(', ')}`);
const read = (file: string) => readFile(file, 'utf8');
const data = values.data
  ? ReferenceDataSet.parse(JSON.parse(await read(values.data)))
  : await loadReferenceData(version);
const nonParticipantCert = values['non-participant-cert'];
const nonParticipantKey = values['non-participant-key'];
const cases = values.group
  ? SCHEME_SUITE_CASES.filter((each) => each.group === values.group)
  : SCHEME_SUITE_CASES;
if (cases.length === 0) fail(`--group: no case in group ${values.group}`);

const startedAt = new Date();
const report = await runSchemeSuite({
  target: {
    baseUrl: target,
    caPem: await read(ca),
    participant: { certPem: await read(cert), keyPem: await read(key) },
    ...(nonParticipantCert &&
      nonParticipantKey && {
        nonParticipant: {
          certPem: await read(nonParticipantCert),
          keyPem: await read(nonParticipantKey),
        },
      }),
  },
  fixture: data.fixture,
  cases,
});
printReport(report);
if (values.junit)
  await writeFile(values.junit, junitXml(SCHEME_SUITE_NAME, report.cases, startedAt));
if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
process.exitCode = report.summary.failed + report.summary.skipped === 0 ? 0 : 1;
