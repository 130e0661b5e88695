import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import {
  importStatus,
  uploadAccountFile,
  uploadAccountStream,
  type ImportTarget,
} from '@vop/import-cli';
import {
  eventually,
  freePort,
  httpsClient,
  startServiceProcess,
  type ServiceProcess,
} from '@vop/testing';
import { accountRecordLines, changedName, recordIban, recordName } from './import-records.js';
import { clientTlsFrom, type ClientTls } from './client-tls.js';
import { accountReadModels, type AccountReadModels } from './account-read-models.js';
import { BENCH_RATE_LIMITS, startDistributedPair } from './distributed-pair.js';
import { PACED_CONNECTIONS, pacedLoad, type PacedLoad } from './paced-load.js';
import { processCpuMs, untilQuiet } from './process-cpu.js';
import { memoryOf } from './process-memory.js';
import { schemeRequestBody } from './scheme-request.js';
import { upkeepSince } from './store-upkeep-metrics.js';

/**
 * A bulk account import of --rows records (default a million), generated as a stream, uploaded to
 * POST /admin/accounts/import of the embedded run and (with --distributed) of the distributed deployment
 * on PostgreSQL and Kafka (every service: the gateway, matching, batch, analytics and the webhook
 * dispatcher; with --pair only the gateway and matching); beside it, single checks at a fixed rate,
 * idle and during the import, in the same run. The import's speed is measured alone (then the same file
 * again, unchanged and with 1 % changed); then single checks idle for --idle seconds, and --beside more new records
 * (default the lesser of --rows and 100,000) imported with the checks beside them, which the import
 * yields to (`import-pacer.ts`).
 * Prints rows/s, the peak RSS of the service processes, and p99 idle and beside that import.
 * An import counts as done when every read model holds it: matching's (a check answers MTCH) and, in the
 * whole deployment, batch's and analytics' (their tables, `account-read-models.ts`).
 * Usage: node bench/dist/import.bench.js [--rows 1000000] [--beside 100000] [--distributed
 *   [--pair] [--import-gateway]] [--no-embedded] [--rate 100] [--warm-up 10] [--timeline]
 *   [--nightly-runs 1] [--upload file|generated|alternate]
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const ROWS = option('--rows', 1_000_000);
const RATE = option('--rate', 100);
const IDLE_SECONDS = option('--idle', 20);
/**
 * Seconds of checks sent before each window opens and not counted, idle and beside alike. The idle
 * window met a gateway that had served no check since it started: its first one or two seconds read
 * p50 0.5 s in two of five runs, as the load generator opened its connections and the broker took most
 * of a core, and they set the idle p99 (bench/RESULTS.md §5, "Both windows warmed").
 */
const WARM_UP_SECONDS = option('--warm-up', 10);
const BESIDE_ROWS = option('--beside', Math.min(ROWS, 100_000));
/**
 * How many times the unchanged file is imported: below a million it lasts a few seconds, and one run
 * alone is not told apart from the machine's noise. The table holds the first; each is printed.
 */
const NIGHTLY_RUNS = option('--nightly-runs', 1);
/**
 * How the --rows imports are sent. `file` (the default): written to a file first, and uploaded from it as
 * `vop-import` does: a bank's nightly file is made elsewhere, and making it here took a fifth of the CPU
 * the unchanged import used (bench/RESULTS.md §5). `generated`: made as it is uploaded (every journal run
 * before this option). `alternate`: the unchanged runs alternate, generated first, to compare the two.
 * The seeds and the import beside the checks are always generated.
 */
const UPLOAD = args.includes('--upload') ? args[args.indexOf('--upload') + 1] : 'file';
if (UPLOAD !== 'file' && UPLOAD !== 'generated' && UPLOAD !== 'alternate')
  throw new Error('--upload is file, generated or alternate');
const SEED = 1_000;
const withDistributed = args.includes('--distributed');
/** `--import-gateway`: distributed, the imports go to a second gateway, the checks to the first. */
const withImportGateway = args.includes('--import-gateway');
/** `--pair`: distributed, only the gateway and matching (the layout of the journal's older import figures). */
const withPairOnly = args.includes('--pair');
const withEmbedded = !args.includes('--no-embedded');
/** `--timeline`: the single checks' p50/p90/max per second, idle and beside the import, on stderr. */
const withTimeline = args.includes('--timeline');
/**
 * `--profile <dir>`: every service process writes a V8 CPU profile there when it stops. Sampled every
 * 10 ms: at V8's default (1 ms) the sampling of each thread kept an idle service above the quiet share
 * the bench waits for before the checks (a wake-up costs ~80 µs on this machine), and the run never ended.
 */
const profileDir = args.includes('--profile')
  ? path.resolve(args[args.indexOf('--profile') + 1] as string)
  : undefined;
const nodeArgs =
  profileDir === undefined
    ? []
    : ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', '10000'];
/** Another path to the embedded entry point (e.g. a symlink), for a machine whose other users stop processes by name. */
const embeddedScript = args.includes('--embedded-script')
  ? path.resolve(args[args.indexOf('--embedded-script') + 1] as string)
  : path.join(repoRoot, 'services/embedded/dist/main.js');

const schemeBody = (index: number, name = recordName(index)): string =>
  schemeRequestBody(name, recordIban(index));
/** The nightly file's changed share in the third import: one record in a hundred. */
const CHANGED_EVERY = 100;

const singleCheckBodies = Array.from({ length: SEED }, (_, index) => schemeBody(index));

/**
 * Single checks against the seeded accounts at a fixed offered rate, evenly paced (`paced-load.ts`):
 * for `seconds`, or (with `until`) until that promise settles, so the figures beside the import cover
 * its whole run.
 */
function singleChecks(
  url: string,
  tls: ClientTls,
  seconds: number,
  beside?: { until: Promise<unknown>; onWindowOpen: () => void },
) {
  return pacedLoad({
    url: `${url}/vop/verify`,
    rate: RATE,
    seconds,
    tls,
    bodies: singleCheckBodies,
    warmUpSeconds: WARM_UP_SECONDS,
    timeline: withTimeline,
    ...beside,
  });
}

async function waitReady(url: string, tls: ClientTls): Promise<void> {
  const client = httpsClient({ baseUrl: url, ...tls });
  await eventually(
    async () =>
      (await client.get('/readyz').catch(() => undefined))?.status === 200 ? true : undefined,
    { timeoutMs: 120_000, intervalMs: 200, what: 'readiness' },
  );
  client.close();
}

/** Until a check of record `index` answers MTCH: matching has applied its event. */
async function matchingSees(
  url: string,
  tls: ClientTls,
  index: number,
  timeoutMs: number,
  name = recordName(index),
) {
  const client = httpsClient({ baseUrl: url, ...tls });
  await eventually(
    async () => {
      const response = await client.request('POST', '/vop/verify', {
        rawBody: schemeBody(index, name),
        headers: { 'content-type': 'application/json' },
      });
      return (response.body as { partyNameMatch?: string }).partyNameMatch === 'MTCH'
        ? true
        : undefined;
    },
    { timeoutMs, intervalMs: 500, what: `record ${index} in the gateway's copy of the accounts` },
  );
  client.close();
}

/** The files of the records, written once each (`--upload file`). */
const recordFiles = new Map<string, Promise<string>>();
function recordFile(from: number, to: number, changedEvery: number): Promise<string> {
  const file = path.join(dataDir, `records-${from}-${to}-${changedEvery}.ndjson`);
  let written = recordFiles.get(file);
  if (written === undefined) {
    written = pipeline(accountRecordLines(from, to, changedEvery), createWriteStream(file)).then(
      () => file,
    );
    recordFiles.set(file, written);
  }
  return written;
}

async function importRows(
  target: ImportTarget,
  from: number,
  to: number,
  label: string,
  changedEvery = 0,
  /** The records' file (`recordFile`, written before any clock starts); else made as they are sent. */
  file?: string,
) {
  const importId = randomUUID();
  const started = Date.now();
  const progress = setInterval(() => {
    importStatus(target, importId).then(
      (status) =>
        status &&
        process.stdout.write(
          `  ${label}: ${status.rows.read} rows after ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
        ),
      () => undefined,
    );
  }, 15_000);
  try {
    const result = await (file === undefined
      ? uploadAccountStream({
          target,
          body: accountRecordLines(from, to, changedEvery),
          format: 'ndjson',
          importId,
        })
      : uploadAccountFile({ target, file, format: 'ndjson', importId }));
    if (!result.ok) throw new Error(`import failed: ${result.status} ${result.error?.message}`);
    return { summary: result.summary, seconds: (Date.now() - started) / 1000 };
  } finally {
    clearInterval(progress);
  }
}

interface Figures {
  target: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  created: number;
  unchanged: number;
  failed: number;
  /** From the end of the upload until every read model held every record. */
  caughtUpSeconds: number;
  /** CPU µs per record of each service process. */
  cpu: string;
  /** The embedded store's vacuums and analyses while it ran: they hold the one backend the import writes to. */
  upkeep: string;
  peakRss: string;
  idle: PacedLoad;
  /** The checks beside the import of BESIDE_ROWS more new records, and that import's rows/s. */
  during: PacedLoad;
  besideRowsPerSecond: number;
  /** The same file again, nothing changed. */
  again: Reimport;
  /** The same file again, one record in CHANGED_EVERY with another name. */
  changed: Reimport;
}

/**
 * CPU time of each service process (every thread) per record over a phase, in µs: less noisy than rows/s.
 * Then this process's own (`client`): it makes and uploads the file on the same cores, where a bank's
 * file comes from another machine.
 */
function cpuPerRecord(services: ServiceProcess[]) {
  const before = services.map((service) => processCpuMs(service.child.pid as number));
  const clientBefore = process.cpuUsage();
  return (rows: number) => {
    const client = process.cpuUsage(clientBefore);
    return [
      ...services.map((service, index) => {
        const used = processCpuMs(service.child.pid as number) - (before[index] ?? 0);
        return `${service.name} ${((used * 1000) / rows).toFixed(1)}`;
      }),
      `client ${((client.user + client.system) / rows).toFixed(1)}`,
    ].join(', ');
  };
}

interface Reimport {
  /** CPU µs per record of each service process. */
  cpu: string;
  /** The embedded store's vacuums and analyses while it ran. */
  upkeep: string;
  seconds: number;
  rowsPerSecond: number;
  updated: number;
  unchanged: number;
  created: number;
}

/** The whole file again (the nightly file): only the changed records may be appended. */
async function reimport(
  target: ImportTarget,
  label: string,
  changedEvery: number,
  services: ServiceProcess[],
  readModels: AccountReadModels | undefined,
  /** Reads the embedded store's upkeep now, for what runs from here on (`upkeepSince`). */
  upkeepFromNow: () => ReturnType<typeof upkeepSince>,
  fromFile: boolean,
) {
  const file = fromFile ? await recordFile(0, ROWS, changedEvery) : undefined;
  const cpu = cpuPerRecord(services);
  const startedAt = new Date();
  const upkeepSoFar = await upkeepFromNow();
  const { summary, seconds } = await importRows(target, 0, ROWS, label, changedEvery, file);
  const upkeep = await upkeepSoFar();
  const expected = changedEvery === 0 ? 0 : Math.ceil(ROWS / changedEvery);
  const { created, updated, unchanged } = summary.rows;
  if (created !== 0 || updated !== expected || unchanged !== ROWS - expected)
    throw new Error(`${label}: ${JSON.stringify(summary.rows)}, expected ${expected} updated`);
  // Nothing else changed in the other read models either (an unchanged record appends nothing).
  await readModels?.reach({ accounts: ROWS, changedSince: { at: startedAt, count: expected } });
  return {
    cpu: cpu(ROWS),
    upkeep,
    seconds,
    rowsPerSecond: Math.round(summary.rows.read / seconds),
    created,
    updated,
    unchanged,
  };
}

/** Seed, the import alone, the same file again, idle checks, then an import with checks beside it. */
async function measure(
  label: string,
  url: string,
  tls: { client: ClientTls; admin: ClientTls },
  services: ServiceProcess[],
  /** Where the imports go, when not to the gateway that answers the checks. */
  importUrl = url,
  /** The whole deployment's other account read models. */
  readModels?: AccountReadModels,
): Promise<Figures> {
  const target: ImportTarget = { url: importUrl, ...tls.admin };
  await waitReady(url, tls.client);
  if (importUrl !== url) await waitReady(importUrl, tls.client);
  await importRows(target, 0, SEED, `${label} seed`);
  await matchingSees(url, tls.client, SEED - 1, 120_000);
  await readModels?.reach({ accounts: SEED });
  const rssBefore = await Promise.all(
    services.map((service) => memoryOf(service.child.pid as number)),
  );
  const fromFile = UPLOAD !== 'generated';
  const file = fromFile ? await recordFile(0, ROWS, 0) : undefined;
  process.stdout.write(`${label}: importing ${ROWS} rows\n`);
  const upkeepFromNow = () => upkeepSince(url, tls.client);
  const importCpu = cpuPerRecord(services);
  const importUpkeep = await upkeepFromNow();
  const { summary, seconds } = await importRows(target, 0, ROWS, label, 0, file);
  const upkeep = await importUpkeep();
  const lagStarted = Date.now();
  await matchingSees(url, tls.client, ROWS - 1, 3_600_000);
  await readModels?.reach({ accounts: ROWS });
  const caughtUpSeconds = (Date.now() - lagStarted) / 1000;
  const cpu = importCpu(ROWS);
  process.stdout.write(`${label}: the same ${ROWS} rows again, unchanged\n`);
  const runFromFile = (run: number) =>
    UPLOAD === 'file' || (UPLOAD === 'alternate' && run % 2 === 0);
  const unchangedRun = (run: number) =>
    reimport(
      target,
      `${label} unchanged`,
      0,
      services,
      readModels,
      upkeepFromNow,
      runFromFile(run),
    );
  const again = await unchangedRun(1);
  const printRun = (run: number, { rowsPerSecond, cpu: runCpu, upkeep: runUpkeep }: Reimport) =>
    process.stdout.write(
      `${label}: unchanged, run ${run} of ${NIGHTLY_RUNS} (${runFromFile(run) ? 'from a file' : 'generated'}): ${rowsPerSecond} rows/s, CPU µs/record ${runCpu}, store upkeep ${runUpkeep}\n`,
    );
  printRun(1, again);
  for (let run = 2; run <= NIGHTLY_RUNS; run += 1) printRun(run, await unchangedRun(run));
  process.stdout.write(`${label}: the same ${ROWS} rows again, 1 in ${CHANGED_EVERY} changed\n`);
  const changed = await reimport(
    target,
    `${label} changed`,
    CHANGED_EVERY,
    services,
    readModels,
    upkeepFromNow,
    fromFile,
  );
  const lastChanged = Math.floor((ROWS - 1) / CHANGED_EVERY) * CHANGED_EVERY;
  await matchingSees(url, tls.client, lastChanged, 600_000, changedName(lastChanged));
  // Idle right before: the same store the import beside the checks writes to, and the gateway's quiet
  // checks (what its import pacer compares with) of that store, once what the imports before left to
  // do is done (embedded, the in-process consumers of a million accounts' events).
  const quietAfter = await untilQuiet(
    services.map((service) => service.child.pid as number),
    { share: 0.1, timeoutMs: 900_000 },
  );
  process.stdout.write(
    `${label}: quiet after ${quietAfter.toFixed(0)} s; idle single checks, ${IDLE_SECONDS} s at ${RATE} req/s\n`,
  );
  const idleUpkeep = await upkeepFromNow();
  const idle = await singleChecks(url, tls.client, IDLE_SECONDS);
  // The store's upkeep waits for a quiet second or an import's end, at most 10 minutes, then runs among
  // the checks: a long idle window after an import can hold it (bench/RESULTS.md §5).
  process.stdout.write(
    `${label}: store upkeep in the idle window ${await idleUpkeep()}; ` +
      `importing ${BESIDE_ROWS} more new rows beside single checks at ${RATE} req/s\n`,
  );
  // The import starts once the checks run at their full rate, as a bank's nightly file lands among
  // checks that never stop. Started first, it ran at its full pace until the first check came, and the
  // checks of the window's first second waited on what those chunks had set off (p50 150 ms,
  // bench/RESULTS.md §5, "Checks first, then the import").
  let startImport = (): void => undefined;
  const importStarted = new Promise<void>((resolve) => (startImport = resolve));
  const beside = importStarted.then(() =>
    importRows(target, ROWS, ROWS + BESIDE_ROWS, `${label} beside checks`),
  );
  const during = await singleChecks(url, tls.client, 24 * 3600, {
    until: beside,
    onWindowOpen: startImport,
  });
  const besideRows = await beside;
  if (besideRows.summary.rows.created !== BESIDE_ROWS)
    throw new Error(`beside checks: ${JSON.stringify(besideRows.summary.rows)}`);
  await matchingSees(url, tls.client, ROWS + BESIDE_ROWS - 1, 600_000);
  await readModels?.reach({ accounts: ROWS + BESIDE_ROWS });
  const memories = await Promise.all(
    services.map(async (service, index) => {
      const peak = (await memoryOf(service.child.pid as number)).peak ?? 0;
      const before = rssBefore[index]?.current ?? 0;
      return `${service.name} ${peak.toFixed(0)} MiB (${before.toFixed(0)} before)`;
    }),
  );
  return {
    target: label,
    rows: summary.rows.read,
    seconds,
    rowsPerSecond: Math.round(summary.rows.read / seconds),
    created: summary.rows.created,
    unchanged: summary.rows.unchanged,
    failed: summary.rows.failed,
    caughtUpSeconds,
    cpu,
    upkeep,
    peakRss: memories.join(', '),
    idle,
    during,
    besideRowsPerSecond: Math.round(BESIDE_ROWS / besideRows.seconds),
    again,
    changed,
  };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-import-bench-'));
const processes: ServiceProcess[] = [];
const figures: Figures[] = [];

async function run(): Promise<void> {
  if (withEmbedded) {
    const port = await freePort();
    const embedded = startServiceProcess(
      'embedded',
      embeddedScript,
      {
        VOP_DATA_DIR: path.join(dataDir, 'embedded'),
        VOP_PORT: String(port),
        LOG_LEVEL: 'warn',
        ...BENCH_RATE_LIMITS,
      },
      [],
      nodeArgs,
    );
    processes.push(embedded);
    const pkiDir = path.join(dataDir, 'embedded/pki');
    const client = await eventually(
      async () => clientTlsFrom(pkiDir, 'client').catch(() => undefined),
      {
        timeoutMs: 60_000,
      },
    );
    const admin = await clientTlsFrom(pkiDir, 'admin');
    figures.push(
      await measure(
        'embedded (PGlite, in-process bus)',
        `https://127.0.0.1:${port}`,
        { client, admin },
        [embedded],
      ),
    );
    await embedded.stop(60_000);
    processes.splice(processes.indexOf(embedded), 1);
  }
  if (withDistributed) {
    const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
    if (!brokers)
      throw new Error('--distributed needs VOP_TEST_DATABASE_URL and VOP_TEST_KAFKA_BROKERS');
    const undo: (() => Promise<unknown>)[] = [];
    const pair = await startDistributedPair({
      name: 'bench_import',
      dataDir,
      brokers,
      nodeArgs,
      importGateway: withImportGateway,
      wholeDeployment: !withPairOnly,
      onMade: (step) => undo.push(step),
    });
    const { gateway, matching, importGateway, rest } = pair;
    const services = [
      gateway,
      matching,
      ...(importGateway ? [importGateway.process] : []),
      ...rest.map((service) => service.process),
    ];
    processes.push(...services);
    const readModels = withPairOnly
      ? undefined
      : accountReadModels(rest.map(({ service, db }) => ({ service, url: db.url })));
    const gateways = importGateway ? '1 gateway for checks, 1 for imports' : '1 gateway';
    try {
      figures.push(
        await measure(
          withPairOnly
            ? `distributed (${gateways}, 1 matching, Kafka, PostgreSQL 15)`
            : `distributed (every service: ${gateways}, matching, batch, analytics, webhook-dispatcher; Kafka, PostgreSQL 15)`,
          pair.url,
          pair.tls,
          services,
          importGateway?.url,
          readModels,
        ),
      );
    } finally {
      await readModels?.close();
      processes.splice(0);
      for (const step of undo.reverse()) await step().catch(() => undefined);
    }
  }
}

try {
  await run();
} catch (error) {
  for (const service of processes)
    process.stderr.write(`--- ${service.name}\n${service.output().slice(-4000)}\n`);
  throw error;
} finally {
  for (const service of processes.splice(0)) await service.stop();
  await rm(dataDir, { recursive: true, force: true });
}

const lines = [
  `| target | rows | import s | rows/s | created / unchanged / failed | read models caught up after | CPU µs/record | store upkeep in it | peak RSS | single-check p99 idle | ${BESIDE_ROWS} more beside checks: rows/s | p99 beside | ratio |`,
  '|---|---:|---:|---:|---|---:|---|---|---|---:|---:|---:|---:|',
  ...figures.map(
    (f) =>
      `| ${f.target} | ${f.rows} | ${f.seconds.toFixed(0)} | ${f.rowsPerSecond} | ${f.created} / ${f.unchanged} / ${f.failed} | ${f.caughtUpSeconds.toFixed(0)} s | ${f.cpu} | ${f.upkeep} | ${f.peakRss} | ${f.idle.p99} ms | ${f.besideRowsPerSecond} | ${f.during.p99} ms | ${(f.during.p99 / Math.max(1, f.idle.p99)).toFixed(2)} |`,
  ),
];
const reimports = [
  '| target | unchanged: s | rows/s | updated | CPU µs/record | store upkeep in it | 1 % changed: s | rows/s | updated / unchanged | CPU µs/record | store upkeep in it |',
  '|---|---:|---:|---:|---|---|---:|---:|---|---|---|',
  ...figures.map(
    ({ target, again: u, changed: c }) =>
      `| ${target} | ${u.seconds.toFixed(1)} | ${u.rowsPerSecond} | ${u.updated} | ${u.cpu} | ${u.upkeep} | ${c.seconds.toFixed(1)} | ${c.rowsPerSecond} | ${c.updated} / ${c.unchanged} | ${c.cpu} | ${c.upkeep} |`,
  ),
];
const answers = (load: PacedLoad) =>
  `${load.answered} of ${load.sent} answered, ${load.answeredPerSecond} req/s, ${load.errors} not 2xx or failed ${JSON.stringify(load.errorCodes)}; p50 ${load.p50} ms, p99 ${load.p99} ms, the service's own p99 (X-Processing-Time-Ms) ${load.serviceP99 ?? '?'} ms, the client stalled up to ${load.clientStallMs} ms`;
const checks = figures.map(
  (f) => `${f.target}: idle ${answers(f.idle)}; beside the import ${answers(f.during)}`,
);
process.stdout.write(
  `\nBulk account import, ${ROWS} NDJSON records (upload: ${UPLOAD}); single checks at ${RATE} req/s evenly paced (${PACED_CONNECTIONS} connections); ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}, load average ${os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(
      ' ',
    )}\n${lines.join('\n')}\n${checks.join('\n')}\n\nThe same file again (the nightly file):\n${reimports.join('\n')}\n`,
);
