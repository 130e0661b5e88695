#!/usr/bin/env node
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { junitXml } from './compliance-report.js';
import { waitForReferenceData } from './reference-data-ready.js';
import {
  loadReferenceData,
  ReferenceDataSet,
  REFERENCE_DATA_VERSIONS,
  resolveReferenceDataVersion,
} from './reference-data.js';
import { SCHEME_SUITE_CASES, SCHEME_SUITE_NAME } from './scheme-suite/index.js';
import { runSchemeSuite, type SchemeSuiteReport } from './suite-run.js';

const DEFAULT_WAIT_SECONDS = 10;

const USAGE = `vop-conformance: runs the ${SCHEME_SUITE_NAME} suite (131 cases) against a responder's EPC path

  vop-conformance --target https://psp.example:8443 --ca ca.pem --cert client.pem --key client-key.pem
                  [--non-participant-cert p.pem --non-participant-key p-key.pem]
                  [--data-version latest|${REFERENCE_DATA_VERSIONS.join('|')} | --data my-reference-data.json]
                  [--wait-for-data 10] [--junit report.xml] [--json report.json] [--group name|bic|lei|id]
                  [--fail-on-skip]

The responder must hold the accounts of the reference data set (POST /test/data/load on this
service; another PSP loads the same accounts, or passes its own data set with --data). Before the
first case it asks for each reference account until it is answered, for up to --wait-for-data
seconds (default ${DEFAULT_WAIT_SECONDS}): right after a load they arrive one by one.
A case that needs a certificate not given (the non-participant's) is skipped, counted apart.
Exit status: 0 when no case failed (1 with --fail-on-skip when one was skipped), 1 when one
failed, 2 on a usage error.`;

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
    if (result.skipReason) out.push(`       ${result.skipReason}`);
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
  const skipped = new Map<string, number>();
  for (const result of report.cases)
    if (result.outcome === 'skipped') {
      const why = result.skipReason ?? 'not run';
      skipped.set(why, (skipped.get(why) ?? 0) + 1);
    }
  for (const [why, count] of skipped) out.push(`skipped ${count}: ${why}`);
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
    'wait-for-data': { type: 'string' },
    'fail-on-skip': { type: 'boolean', default: false },
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
const version = resolveReferenceDataVersion(values['data-version'] ?? 'latest');
if (version === undefined)
  fail(`--data-version: one of latest, ${REFERENCE_DATA_VERSIONS.join(', ')}`);
const waitSeconds = Number(values['wait-for-data'] ?? DEFAULT_WAIT_SECONDS);
if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > 600)
  fail('--wait-for-data: seconds from 0 to 600');
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

const caPem = await read(ca);
const participant = { certPem: await read(cert), keyPem: await read(key) };
if (waitSeconds > 0) {
  const waited = await waitForReferenceData({
    baseUrl: target,
    caPem,
    participant,
    dataSet: data,
    timeoutMs: waitSeconds * 1000,
    onWaiting: () =>
      process.stderr.write(
        `Waiting up to ${waitSeconds} s until the responder answers every reference account\n`,
      ),
  });
  if (!waited.ready)
    process.stderr.write(
      `The reference accounts were not all answered within ${waitSeconds} s; running anyway:\n  ${waited.failures.join('\n  ')}\n`,
    );
}

const startedAt = new Date();
const report = await runSchemeSuite({
  target: {
    baseUrl: target,
    caPem,
    participant,
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
const skipsFail = values['fail-on-skip'] && report.summary.skipped > 0;
process.exitCode = report.summary.failed === 0 && !skipsFail ? 0 : 1;
