import { randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importStatus, uploadAccountStream, type ImportTarget } from '@vop/import-cli';
import { eventually, httpsClient, type ServiceProcess } from '@vop/testing';
import { startDistributedPair, type DistributedPair } from './distributed-pair.js';
import { diskByTable, type DiskKind, type TableDisk } from './disk-by-table.js';
import { accountRecordLines, recordIban, recordName } from './import-records.js';
import { kafkaBytesUnder } from './kafka-disk.js';
import { PACED_CONNECTIONS, pacedLoad, type PacedLoad } from './paced-load.js';
import { memoryOf, processTreeMemory, type Memory } from './process-memory.js';
import { runContext } from './run-context.js';
import { schemeRequestBody } from './scheme-request.js';

/**
 * Ten million accounts, distributed (issue 45, item 3): two deployments at once on the shared
 * PostgreSQL and Kafka, each a gateway and a matching process with databases and topics of their own,
 * SMALL with a thousand accounts and LARGE with --accounts (the import bench's generated mix, uploaded
 * to POST /admin/accounts/import in uploads of --upload records). Prints the load time (until the last
 * record answers MTCH), disk per million accounts (events, read models, keys), the memory of every
 * process after the load and after the checks, and a single check's p50/p99 against LARGE and SMALL in
 * alternating phases, over accounts drawn at random from the whole of each store.
 * Usage: node bench/dist/scale.bench.js [--accounts 10000000] [--upload 1000000] [--small 1000]
 *        [--rate 100] [--phase-seconds 20] [--phases 3]
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const ACCOUNTS = option('--accounts', 10_000_000);
const UPLOAD = option('--upload', 1_000_000);
const SMALL_ACCOUNTS = option('--small', 1_000);
const RATE = option('--rate', 100);
const PHASE_SECONDS = option('--phase-seconds', 20);
const PHASES = option('--phases', 3);
const WARM_UP_SECONDS = 5;
/** Accounts of LARGE checked one by one before the phases: a random row answers MTCH. */
const SPOT_CHECKS = 20;
const infraDir = process.env.VOP_INFRA_DIR ?? path.join(repoRoot, '.infra');
const MIB = 2 ** 20;

const context = runContext();
process.stdout.write(`${context.header}\n`);

interface Deployment extends DistributedPair {
  label: string;
  accounts: number;
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-scale-bench-'));
const deployments: Deployment[] = [];
const services: ServiceProcess[] = [];
/** What a run made (processes, databases, topics), undone last first however the run ends. */
const undo: (() => Promise<unknown>)[] = [];
const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
if (!brokers || !process.env.VOP_TEST_DATABASE_URL)
  throw new Error(
    'needs VOP_TEST_DATABASE_URL and VOP_TEST_KAFKA_BROKERS (pnpm bench:scale sets them)',
  );

/** A gateway and a matching process with databases, topics and a PKI of their own. */
async function deploy(label: string, accounts: number, kafka: string): Promise<Deployment> {
  const pair = await startDistributedPair({
    name: `bench_scale_${label.toLowerCase()}`,
    dataDir: path.join(dataDir, label.toLowerCase()),
    brokers: kafka,
    onMade: (step) => undo.push(step),
  });
  services.push(pair.matching, pair.gateway);
  const deployment: Deployment = { label, accounts, ...pair };
  deployments.push(deployment);
  return deployment;
}

async function waitReady(deployment: Deployment): Promise<void> {
  const client = httpsClient({ baseUrl: deployment.url, ...deployment.tls.client });
  await eventually(
    async () =>
      (await client.get('/readyz').catch(() => undefined))?.status === 200 ? true : undefined,
    { timeoutMs: 120_000, intervalMs: 200, what: `${deployment.label} readiness` },
  );
  client.close();
}

const checkBody = (index: number): string =>
  schemeRequestBody(recordName(index), recordIban(index));

/** Until a check of record `index` answers MTCH: matching has applied its event. */
async function verifiable(deployment: Deployment, index: number, timeoutMs: number) {
  const client = httpsClient({ baseUrl: deployment.url, ...deployment.tls.client });
  try {
    await eventually(
      async () => {
        const response = await client.request('POST', '/vop/verify', {
          rawBody: checkBody(index),
          headers: { 'content-type': 'application/json' },
        });
        return (response.body as { partyNameMatch?: string }).partyNameMatch === 'MTCH'
          ? true
          : undefined;
      },
      { timeoutMs, intervalMs: 500, what: `${deployment.label}: record ${index} answering MTCH` },
    );
  } finally {
    client.close();
  }
}

interface Upload {
  from: number;
  to: number;
  seconds: number;
  created: number;
}

/** One upload of records [from, to), its import status printed every 15 s. */
async function upload(deployment: Deployment, from: number, to: number): Promise<Upload> {
  const target: ImportTarget = { url: deployment.url, ...deployment.tls.admin };
  const importId = randomUUID();
  const started = Date.now();
  const progress = setInterval(() => {
    importStatus(target, importId).then(
      (status) =>
        status &&
        process.stdout.write(
          `  ${deployment.label} [${from}, ${to}): ${status.rows.read} rows read after ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
        ),
      () => undefined,
    );
  }, 15_000);
  try {
    const result = await uploadAccountStream({
      target,
      body: accountRecordLines(from, to),
      format: 'ndjson',
      importId,
    });
    if (!result.ok)
      throw new Error(
        `${deployment.label} upload [${from}, ${to}) failed: ${result.status} ${result.error?.message}`,
      );
    const { created, failed } = result.summary.rows;
    if (created !== to - from || failed !== 0)
      throw new Error(
        `${deployment.label} upload [${from}, ${to}): ${JSON.stringify(result.summary.rows)}`,
      );
    return { from, to, seconds: (Date.now() - started) / 1000, created };
  } finally {
    clearInterval(progress);
  }
}

interface Load {
  uploads: Upload[];
  /** From the first upload's start until the last record answered MTCH. */
  seconds: number;
  /** After the last upload was answered, until its last record answered MTCH. */
  catchUpSeconds: number;
}

async function load(deployment: Deployment): Promise<Load> {
  const started = Date.now();
  const uploads: Upload[] = [];
  for (let from = 0; from < deployment.accounts; from += UPLOAD) {
    const done = await upload(deployment, from, Math.min(deployment.accounts, from + UPLOAD));
    uploads.push(done);
    const cumulativeSeconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `${deployment.label}: upload [${done.from}, ${done.to}) in ${done.seconds.toFixed(0)} s, ${rate(done.created, done.seconds)} rows/s; ${done.to} in ${cumulativeSeconds.toFixed(0)} s, ${rate(done.to, cumulativeSeconds)} rows/s cumulative\n`,
    );
  }
  const uploaded = Date.now();
  await verifiable(deployment, deployment.accounts - 1, 3_600_000);
  return {
    uploads,
    seconds: (Date.now() - started) / 1000,
    catchUpSeconds: (Date.now() - uploaded) / 1000,
  };
}

const rate = (rows: number, seconds: number) => Math.round(rows / Math.max(seconds, 0.001));

/** Checks of accounts drawn at random from the whole store, a new draw each phase, one body per check. */
function checks(deployment: Deployment, seconds: number): Promise<PacedLoad> {
  const count = RATE * (seconds + 2);
  return pacedLoad({
    url: `${deployment.url}/vop/verify`,
    rate: RATE,
    seconds,
    tls: deployment.tls.client,
    bodies: Array.from({ length: count }, () => checkBody(randomInt(deployment.accounts))),
  });
}

interface ProcessMemory {
  name: string;
  memory: Memory;
  note?: string;
}

/** The service processes of both deployments, and the shared PostgreSQL and Kafka where found. */
async function memories(): Promise<ProcessMemory[]> {
  const services = await Promise.all(
    deployments.flatMap((deployment) =>
      [deployment.gateway, deployment.matching].map(async (service) => ({
        name: service.name,
        memory: await memoryOf(service.child.pid as number),
      })),
    ),
  );
  const servers: ProcessMemory[] = [];
  const postmaster = await pidFrom(path.join(infraDir, 'pg/data/postmaster.pid'));
  if (postmaster !== undefined) {
    const tree = await processTreeMemory(postmaster).catch(() => undefined);
    if (tree)
      servers.push({
        name: 'PostgreSQL (shared)',
        memory: tree,
        note: `Pss summed over its ${tree.processes} processes`,
      });
  }
  const kafka = await pidFrom(path.join(infraDir, 'kafka/kafka.pid'));
  if (kafka !== undefined) {
    const memory = await memoryOf(kafka).catch(() => undefined);
    if (memory) servers.push({ name: 'Kafka (shared)', memory });
  }
  return [...services, ...servers];
}

async function pidFrom(file: string): Promise<number | undefined> {
  const first = (await readFile(file, 'utf8').catch(() => '')).split('\n')[0]?.trim();
  return first && /^\d+$/.test(first) ? Number(first) : undefined;
}

interface Disk {
  deployment: Deployment;
  tables: TableDisk[];
  databaseBytes: number;
  kafkaBytes: number;
}

async function disk(deployment: Deployment): Promise<Disk> {
  const [gateway, matching, kafkaBytes] = await Promise.all([
    diskByTable('gateway', deployment.gatewayDb.url),
    diskByTable('matching', deployment.matchingDb.url),
    kafkaBytesUnder(path.join(infraDir, 'kafka/data'), deployment.namespace.name).catch(() => 0),
  ]);
  return {
    deployment,
    tables: [...gateway.tables, ...matching.tables],
    databaseBytes: gateway.databaseBytes + matching.databaseBytes,
    kafkaBytes,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

let undone: Promise<void> | undefined;
/** Once, whether a signal or the run's end asks first; the other waits for the same. */
function undoAll(): Promise<void> {
  undone ??= (async () => {
    for (const step of undo.splice(0).reverse()) await step().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  })();
  return undone;
}

// A ten-million-account run leaves tens of GB behind unless its databases are dropped.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`${signal}: stopping the services and dropping the databases\n`);
    void undoAll().finally(() => process.exit(130));
  });

const runStarted = Date.now();
let report = '';
try {
  const small = await deploy('SMALL', SMALL_ACCOUNTS, brokers);
  const large = await deploy('LARGE', ACCOUNTS, brokers);
  await Promise.all([waitReady(small), waitReady(large)]);
  process.stdout.write(`SMALL: loading ${SMALL_ACCOUNTS} accounts\n`);
  const smallLoad = await load(small);
  process.stdout.write(`LARGE: loading ${ACCOUNTS} accounts in uploads of ${UPLOAD}\n`);
  const largeLoad = await load(large);
  const afterLoad = await memories();
  const disks = await Promise.all([disk(small), disk(large)]);

  for (let spot = 0; spot < SPOT_CHECKS; spot++)
    await verifiable(large, randomInt(ACCOUNTS), 10_000);
  process.stdout.write(
    `checks: warm-up ${WARM_UP_SECONDS} s each, then ${PHASES} × (LARGE, SMALL) × ${PHASE_SECONDS} s at ${RATE} req/s\n`,
  );
  await checks(large, WARM_UP_SECONDS);
  await checks(small, WARM_UP_SECONDS);
  const phases: { deployment: Deployment; result: PacedLoad }[] = [];
  for (let phase = 0; phase < PHASES; phase++)
    for (const deployment of [large, small]) {
      const result = await checks(deployment, PHASE_SECONDS);
      phases.push({ deployment, result });
      process.stdout.write(
        `  ${deployment.label} phase ${phase + 1}: p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.answered} of ${result.sent} answered, ${result.errors} errors\n`,
      );
    }
  const afterChecks = await memories();
  report = tables({ smallLoad, largeLoad, afterLoad, afterChecks, disks, phases, small, large });
} catch (error) {
  for (const service of services)
    process.stderr.write(`--- ${service.name}\n${service.output().slice(-4000)}\n`);
  throw error;
} finally {
  await undoAll();
}
process.stdout.write(
  `${report}\nwhole run ${((Date.now() - runStarted) / 60_000).toFixed(1)} min\n${context.footer()}\n`,
);

function tables(run: {
  smallLoad: Load;
  largeLoad: Load;
  afterLoad: ProcessMemory[];
  afterChecks: ProcessMemory[];
  disks: Disk[];
  phases: { deployment: Deployment; result: PacedLoad }[];
  small: Deployment;
  large: Deployment;
}): string {
  const out: string[] = [];
  const mib = (bytes: number) => (bytes / MIB).toFixed(1);
  const perMillion = (bytes: number, accounts: number) => ((bytes / MIB) * 1e6) / accounts;

  out.push('', `Load (the import bench's mix, NDJSON, uploads of ${UPLOAD}):`);
  out.push(
    '| store | accounts | uploads | load s (to last MTCH) | rows/s | matching caught up after |',
  );
  out.push('|---|---:|---:|---:|---:|---:|');
  for (const [deployment, loaded] of [
    [run.small, run.smallLoad],
    [run.large, run.largeLoad],
  ] as const)
    out.push(
      `| ${deployment.label} | ${deployment.accounts} | ${loaded.uploads.length} | ${loaded.seconds.toFixed(0)} | ${rate(deployment.accounts, loaded.seconds)} | ${loaded.catchUpSeconds.toFixed(1)} s |`,
    );
  out.push(
    '',
    'LARGE uploads:',
    '| records | s | rows/s | cumulative rows/s |',
    '|---|---:|---:|---:|',
  );
  let elapsed = 0;
  for (const done of run.largeLoad.uploads) {
    elapsed += done.seconds;
    out.push(
      `| [${done.from}, ${done.to}) | ${done.seconds.toFixed(0)} | ${rate(done.created, done.seconds)} | ${rate(done.to, elapsed)} |`,
    );
  }

  const kinds: DiskKind[] = ['events', 'read models', 'keys', 'other'];
  out.push('', 'Disk (pg_total_relation_size: heap, TOAST and indexes; MiB):');
  out.push(
    `| store | ${kinds.join(' | ')} | databases | Kafka topics | events per M | read models per M | keys per M | databases per M |`,
  );
  out.push(`|---|${kinds.map(() => '---:').join('|')}|---:|---:|---:|---:|---:|---:|`);
  for (const measured of run.disks) {
    const accounts = measured.deployment.accounts;
    const byKind = (kind: DiskKind) =>
      measured.tables.filter((table) => table.kind === kind).reduce((sum, t) => sum + t.bytes, 0);
    out.push(
      `| ${measured.deployment.label} | ${kinds.map((kind) => mib(byKind(kind))).join(' | ')} | ${mib(measured.databaseBytes)} | ${mib(measured.kafkaBytes)} | ${perMillion(byKind('events'), accounts).toFixed(0)} | ${perMillion(byKind('read models'), accounts).toFixed(0)} | ${perMillion(byKind('keys'), accounts).toFixed(0)} | ${perMillion(measured.databaseBytes, accounts).toFixed(0)} |`,
    );
  }
  const largeDisk = run.disks.find((measured) => measured.deployment === run.large);
  out.push(
    '',
    'LARGE tables of 1 MiB and more:',
    '| database | table | kind | MiB |',
    '|---|---|---|---:|',
  );
  for (const table of [...(largeDisk?.tables ?? [])]
    .filter((t) => t.bytes >= MIB)
    .sort((a, b) => b.bytes - a.bytes))
    out.push(`| ${table.database} | ${table.table} | ${table.kind} | ${mib(table.bytes)} |`);

  const peakOf = (memory: Memory) => memory.peak?.toFixed(0) ?? '–';
  out.push(
    '',
    'Memory (MiB; VmHWM peak / VmRSS now; PostgreSQL and Kafka are shared with other runs):',
  );
  out.push(
    '| process | after load: peak | now | after checks: peak | now |',
    '|---|---:|---:|---:|---:|',
  );
  for (const before of run.afterLoad) {
    const after = run.afterChecks.find((measured) => measured.name === before.name);
    out.push(
      `| ${before.name}${before.note ? ` (${before.note})` : ''} | ${peakOf(before.memory)} | ${before.memory.current.toFixed(0)} | ${after ? peakOf(after.memory) : '?'} | ${after?.memory.current.toFixed(0) ?? '?'} |`,
    );
  }

  out.push(
    '',
    `Single checks, ${RATE} req/s evenly paced (${PACED_CONNECTIONS} connections), accounts at random over each whole store, alternating ${PHASE_SECONDS} s phases:`,
  );
  out.push(
    '| store | phase | p50 ms | p99 ms | max ms | answered / sent | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  const figures = (deployment: Deployment) =>
    run.phases.filter((phase) => phase.deployment === deployment).map((phase) => phase.result);
  for (const deployment of [run.large, run.small])
    figures(deployment).forEach((result, index) =>
      out.push(
        `| ${deployment.label} | ${index + 1} | ${result.p50} | ${result.p99} | ${result.max} | ${result.answered} / ${result.sent} | ${result.errors} ${result.errors > 0 ? JSON.stringify(result.errorCodes) : ''} |`,
      ),
    );
  const p50 = (deployment: Deployment) => median(figures(deployment).map((result) => result.p50));
  const p99 = (deployment: Deployment) => median(figures(deployment).map((result) => result.p99));
  out.push(
    '',
    `median of the phases: LARGE p50 ${p50(run.large)} ms, p99 ${p99(run.large)} ms; SMALL p50 ${p50(run.small)} ms, p99 ${p99(run.small)} ms; LARGE / SMALL: p50 ${(p50(run.large) / Math.max(1, p50(run.small))).toFixed(2)}, p99 ${(p99(run.large) / Math.max(1, p99(run.small))).toFixed(2)}`,
  );
  return out.join('\n');
}
