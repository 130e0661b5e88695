import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import autocannon from 'autocannon';
import { ensureDevPki } from '@vop/pki';
import {
  createTestDatabase,
  eventually,
  freePort,
  germanIban,
  httpsClient,
  startServiceProcess,
  type ServiceProcess,
  createTestNamespace,
} from '@vop/testing';
import { printedPort } from './printed-port.js';
import { runContext } from './run-context.js';
import { clientTlsFrom, type ClientTls } from './client-tls.js';
import { type CpuWaitMs, processCpuMs, processCpuWaitMs } from './process-cpu.js';
import {
  describeGc,
  GC_DIR_VARIABLE,
  gcOverRow,
  readGcTotals,
  type GcOverRow,
} from './gc-totals.js';
import { PACED_CONNECTIONS, pacedLoad } from './paced-load.js';
import { watchLoopDelay } from './service-loop-delay.js';
import { schemeRequestBody } from './scheme-request.js';

/**
 * POST /vop/verify throughput and latency over keep-alive HTTPS, beside a bare node:https JSON endpoint
 * measured in the same run with the same load generators (autocannon in this process for the maximum rows,
 * `paced-load.ts` evenly paced for the offered-rate rows; every server in a process of its own). Usage: node bench/dist/http-verify.bench.js [--distributed | --distributed-only] [--instances 1] [--duration 10] [--cpu-prof DIR] [--root OTHER_CHECKOUT] [--rate 1000] [--paced-only] [--timeline] [--warm-up 10] [--gc]
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: flags } = parseArgs({
  options: {
    distributed: { type: 'boolean', default: false },
    // Only the distributed rows (and the bare ones they are compared with): no embedded run.
    'distributed-only': { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    // Distributed: this many gateways and matching processes (the load is split across the gateways).
    instances: { type: 'string', default: '1' },
    // A folder: each service process writes a V8 CPU profile there when it stops.
    'cpu-prof': { type: 'string' },
    // Another checkout's build: its services are measured with this run's load generators ("before").
    root: { type: 'string' },
    // The distributed paced row's offered rate (the bar is 1,000; a lower one profiles a steady state).
    rate: { type: 'string', default: '1000' },
    // Distributed: only the paced row, so a profile shows that steady state and not the maximum's.
    'paced-only': { type: 'boolean', default: false },
    // Paced rows: each second's p50, p90 and max on stderr, to tell steady queueing from stalls.
    timeline: { type: 'boolean', default: false },
    // Paced rows: seconds of warm-up before the window, ramped from a tenth of the rate (paced-load-runner.ts);
    // 0 measures a cold start at the full rate.
    'warm-up': { type: 'string', default: '10' },
    // Every service process and thread counts its GC pauses and the bytes it allocates (gc-recorder.ts).
    gc: { type: 'boolean', default: false },
  },
});
const duration = Number(flags.duration);
if (!Number.isFinite(duration) || duration <= 0) throw new Error('--duration must be seconds > 0');
const warmUpSeconds = Number(flags['warm-up']);
if (!Number.isFinite(warmUpSeconds) || warmUpSeconds < 0)
  throw new Error('--warm-up must be seconds >= 0');
const distributedRate = Number(flags.rate);
if (!Number.isInteger(distributedRate) || distributedRate < 1)
  throw new Error('--rate must be requests per second >= 1');
const servicesRoot = flags.root === undefined ? repoRoot : path.resolve(flags.root);
const withDistributed = flags.distributed || flags['distributed-only'];
const withEmbedded = !flags['distributed-only'];
const instances = Number(flags.instances);
if (!Number.isInteger(instances) || instances < 1) throw new Error('--instances must be >= 1');
const gcDir = flags.gc ? await mkdtemp(path.join(os.tmpdir(), 'vop-bench-gc-')) : undefined;
// Inherited by every process started from here (processes.ts passes the environment on).
if (gcDir !== undefined) process.env[GC_DIR_VARIABLE] = gcDir;
const nodeArgs = [
  ...(flags['cpu-prof'] === undefined
    ? []
    : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(flags['cpu-prof'])}`]),
  ...(gcDir === undefined
    ? []
    : [`--import=${pathToFileURL(path.join(repoRoot, 'bench/dist/gc-recorder.js')).href}`]),
];
const context = runContext();
process.stdout.write(`${context.header}\n`);
const ACCOUNTS = 1000;
const CONNECTIONS = 32;

interface Figures {
  target: string;
  mode: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Paced rows: requests sent in the measured window, and how many of them were answered at all. */
  paced?: {
    sent: number;
    answered: number;
    clientStallMs: number;
    /** p99 of X-Processing-Time-Ms: from the edge's first step to the answer. */
    serviceP99: number | null;
    /** The service's longest event-loop delay in the window (service-loop-delay.ts). */
    serviceLoopDelayMs: number | null;
  };
  /** Requests sent over the whole row (a paced row's warm-up included): what the CPU below served. */
  requests: number;
  /** CPU ms per request of each service process over the whole row (`measureServices`). */
  cpuMsPerRequest?: Record<string, number>;
  /** Ms each service process's threads waited for a CPU per request over the same span (`measureServices`). */
  cpuWaitMsPerRequest?: Record<string, CpuWaitMs>;
  /** With `--gc`: each service process's collections over the same span (gc-totals.ts). */
  gc?: Record<string, GcOverRow>;
}

/** A process counts as idle below this share of a core (timers, polls, its relays' idle rounds). */
const IDLE_SHARE_OF_A_CORE = 0.05;

/**
 * A row's figures with each service process's CPU time per request (/proc, every thread), from the
 * row's start until the processes are idle again: the work a row leaves behind (the embedded read
 * models' backlog, the relays' last rounds) is the row's, not the next row's. Compared within one
 * run, it is less noisy on a shared machine than the rates. Also the time their threads waited for a
 * CPU per request (runnable, not running), the main thread apart: where a busy box makes its tail.
 * With `--gc`, their collections over the same span too (gc-totals.ts).
 */
async function measureServices(
  services: ServiceProcess[],
  row: () => Promise<Figures>,
): Promise<Figures> {
  const cpu = () => services.map((service) => processCpuMs(service.child.pid ?? 0));
  const cpuWait = () => services.map((service) => processCpuWaitMs(service.child.pid ?? 0));
  const gcTotals = () => (gcDir === undefined ? undefined : readGcTotals(gcDir));
  const before = cpu();
  const waitBefore = cpuWait();
  const gcBefore = gcTotals();
  const figures = await row();
  let after = cpu();
  for (let waited = 0; waited < 60_000; waited += 1000) {
    await delay(1000);
    const now = cpu();
    const busiest = Math.max(...now.map((ms, index) => ms - (after[index] ?? 0)));
    after = now;
    if (busiest < 1000 * IDLE_SHARE_OF_A_CORE) break;
  }
  const waitAfter = cpuWait();
  const requests = Math.max(figures.requests, 1);
  // The recorders write every second: one more second, so the last of the row is in their files.
  if (gcDir !== undefined) await delay(1100);
  const gcAfter = gcTotals();
  const gc =
    gcAfter === undefined
      ? undefined
      : Object.fromEntries(
          services.flatMap((service) => {
            const pid = service.child.pid ?? 0;
            const row = gcOverRow(gcBefore?.get(pid), gcAfter.get(pid), figures.requests);
            return row === undefined ? [] : [[service.name, row] as const];
          }),
        );
  return {
    ...figures,
    ...(gc !== undefined && { gc }),
    cpuMsPerRequest: Object.fromEntries(
      services.map((service, index) => [
        service.name,
        ((after[index] ?? 0) - (before[index] ?? 0)) / requests,
      ]),
    ),
    cpuWaitMsPerRequest: Object.fromEntries(
      services.flatMap((service, index) => {
        const [start, end] = [waitBefore[index], waitAfter[index]];
        if (start === undefined || end === undefined) return [];
        const perRequest = (ms: number) => ms / requests;
        return [
          [
            service.name,
            { all: perRequest(end.all - start.all), main: perRequest(end.main - start.main) },
          ],
        ];
      }),
    ),
  };
}

const verifyBodies = Array.from({ length: ACCOUNTS }, (_, index) =>
  schemeRequestBody(`Holder ${index} Nilsson`, germanIban(500_000 + index)),
);

async function load(
  target: string,
  url: string,
  options: {
    rate?: number;
    tls: ClientTls;
    connections?: number;
    /** A service of ours (not the bare endpoint, which answers JSON only): its /metrics is read. */
    service?: boolean;
  },
): Promise<Figures> {
  if (options.rate !== undefined)
    return loadPaced(target, url, {
      rate: options.rate,
      tls: options.tls,
      connections: options.connections ?? PACED_CONNECTIONS,
      service: options.service ?? false,
    });
  let counter = 0;
  const connections = options.connections ?? CONNECTIONS;
  const result = await autocannon({
    url: `${url}/vop/verify`,
    method: 'POST',
    connections,
    duration,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => ({ ...request, body: verifyBodies[counter++ % ACCOUNTS] }),
      },
    ],
    tlsOptions: { ca: options.tls.caPem, cert: options.tls.certPem, key: options.tls.keyPem },
  });
  return {
    target,
    mode: `max, ${connections} connections`,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}

/** A fixed offered rate, evenly paced (`paced-load.ts` says why not autocannon's rate). */
async function loadPaced(
  target: string,
  url: string,
  options: { rate: number; tls: ClientTls; connections: number; service: boolean },
): Promise<Figures> {
  const loopDelay = options.service ? watchLoopDelay(url, options.tls, warmUpSeconds) : undefined;
  const result = await pacedLoad({
    url: `${url}/vop/verify`,
    rate: options.rate,
    seconds: duration,
    tls: options.tls,
    bodies: verifyBodies,
    connections: options.connections,
    timeline: flags.timeline,
    warmUpSeconds,
  });
  const connectionErrors = result.errorCodes['-1'] ?? 0;
  return {
    target,
    mode: pacedMode(options.rate, options.connections),
    requestsPerSecond: result.answeredPerSecond,
    p50: result.p50,
    p99: result.p99,
    errors: connectionErrors,
    non2xx: result.errors - connectionErrors,
    paced: {
      sent: result.sent,
      answered: result.answered,
      clientStallMs: result.clientStallMs,
      serviceP99: result.serviceP99,
      serviceLoopDelayMs: (await loopDelay?.readMaxMs()) ?? null,
    },
    requests: result.sentInAll,
  };
}

function pacedMode(rate: number, connections: number): string {
  const warmUp = warmUpSeconds === 0 ? 'cold (no warm-up)' : `after a ${warmUpSeconds} s ramp`;
  return `${rate} req/s offered, evenly paced, ${connections} connections, ${warmUp}`;
}

/** The worst gateway's figure, null when none reported one. */
function worstOf(parts: Figures[], pick: (paced: NonNullable<Figures['paced']>) => number | null) {
  const reported = parts.flatMap((f) => {
    const figure = f.paced ? pick(f.paced) : null;
    return figure === null ? [] : [figure];
  });
  return reported.length === 0 ? null : Math.max(...reported);
}

/** What a paced row's mode adds: how much was answered, and whose stalls its latencies hold. */
function pacedNote(paced: NonNullable<Figures['paced']>): string {
  return [
    `${paced.answered} of ${paced.sent} answered`,
    ...(paced.serviceP99 === null ? [] : [`the service's own p99 ${paced.serviceP99} ms`]),
    ...(paced.serviceLoopDelayMs === null
      ? []
      : [`its event loop delayed up to ${paced.serviceLoopDelayMs} ms`]),
    `the client stalled up to ${paced.clientStallMs} ms`,
  ].join('; ');
}

/** The same load split evenly across several gateways at once; rates and counts add up. */
async function loadAcross(
  target: string,
  urls: string[],
  options: { rate?: number; tls: ClientTls },
): Promise<Figures> {
  const parts = await Promise.all(
    urls.map((url) =>
      load(target, url, {
        ...options,
        service: true,
        ...(options.rate === undefined
          ? { connections: CONNECTIONS / urls.length }
          : { rate: options.rate / urls.length, connections: PACED_CONNECTIONS / urls.length }),
      }),
    ),
  );
  const sum = (pick: (f: Figures) => number) => parts.reduce((total, f) => total + pick(f), 0);
  return {
    target,
    mode:
      options.rate === undefined
        ? `max, ${CONNECTIONS} connections`
        : pacedMode(options.rate, PACED_CONNECTIONS),
    requestsPerSecond: sum((f) => f.requestsPerSecond),
    // Each generator's percentile; the worst gateway's is the honest one.
    p50: Math.max(...parts.map((f) => f.p50)),
    p99: Math.max(...parts.map((f) => f.p99)),
    errors: sum((f) => f.errors),
    non2xx: sum((f) => f.non2xx),
    requests: sum((f) => f.requests),
    ...(options.rate !== undefined && {
      paced: {
        sent: sum((f) => f.paced?.sent ?? 0),
        answered: sum((f) => f.paced?.answered ?? 0),
        clientStallMs: Math.max(...parts.map((f) => f.paced?.clientStallMs ?? 0)),
        serviceP99: worstOf(parts, (paced) => paced.serviceP99),
        serviceLoopDelayMs: worstOf(parts, (paced) => paced.serviceLoopDelayMs),
      },
    }),
  };
}

/** Account records are the bank's own data: written with the admin certificate, verified as a participant. */
async function seedAccounts(url: string, tls: ClientTls, adminTls: ClientTls): Promise<void> {
  const client = httpsClient({ baseUrl: url, ...tls });
  const admin = httpsClient({ baseUrl: url, ...adminTls });
  for (let index = 0; index < ACCOUNTS; index++) {
    const response = await admin.post('/accounts', {
      iban: germanIban(500_000 + index),
      name: `Holder ${index} Nilsson`,
    });
    if (response.status !== 201 && response.status !== 409)
      throw new Error(`seeding failed: ${response.status} ${response.text}`);
  }
  const last = ACCOUNTS - 1;
  await eventually(
    async () => {
      const response = await client.request('POST', '/vop/verify', {
        rawBody: schemeRequestBody(`Holder ${last} Nilsson`, germanIban(500_000 + last)),
        headers: { 'content-type': 'application/json' },
      });
      return (response.body as { partyNameMatch?: string }).partyNameMatch === 'MTCH'
        ? true
        : undefined;
    },
    { timeoutMs: 60_000, what: "seeded accounts in the gateway's copy" },
  );
  client.close();
  admin.close();
}

async function waitReady(url: string, tls: ClientTls): Promise<void> {
  const client = httpsClient({ baseUrl: url, ...tls });
  await eventually(
    async () =>
      (await client.get('/readyz').catch(() => undefined))?.status === 200 ? true : undefined,
    { timeoutMs: 60_000, intervalMs: 200, what: 'readiness' },
  );
  client.close();
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-bench-'));
const pki = await ensureDevPki(dataDir);
const tls = await clientTlsFrom(pki.dir);
const figures: Figures[] = [];
const processes: ServiceProcess[] = [];

async function run(): Promise<void> {
  const bare = startServiceProcess('bare', path.join(repoRoot, 'bench/dist/bare-server.js'), {}, [
    pki.serverCertPath,
    pki.serverKeyPath,
    pki.caPath,
  ]);
  processes.push(bare);
  const barePort = await printedPort(bare);
  figures.push(await load('bare node:https JSON', `https://127.0.0.1:${barePort}`, { tls }));
  // What the paced generator itself adds: the bare endpoint at the distributed bar's rate.
  figures.push(
    await load('bare node:https JSON', `https://127.0.0.1:${barePort}`, { tls, rate: 1000 }),
  );
  await bare.stop();

  if (withEmbedded) {
    const embeddedPort = await freePort();
    const embedded = startServiceProcess(
      'embedded',
      path.join(servicesRoot, 'services/embedded/dist/main.js'),
      {
        VOP_DATA_DIR: path.join(dataDir, 'embedded'),
        VOP_PORT: String(embeddedPort),
        LOG_LEVEL: 'warn',
        // Seeding writes 1,000 accounts from one address: lift the sandbox's 100 writes/hour for the benchmark.
        VOP_RATE_LIMIT_TEST_PER_HOUR: '1000000',
        // The load is one participant's: lift its verification budget (6,000 a minute by default).
        VOP_TEST_RATE_LIMITS: '{"default":100000000}',
      },
      [],
      nodeArgs,
    );
    processes.push(embedded);
    const embeddedUrl = `https://127.0.0.1:${embeddedPort}`;
    const embeddedTls = await eventually(
      async () => clientTlsFrom(path.join(dataDir, 'embedded/pki')).catch(() => undefined),
      { timeoutMs: 60_000 },
    );
    await waitReady(embeddedUrl, embeddedTls);
    await seedAccounts(
      embeddedUrl,
      embeddedTls,
      await clientTlsFrom(path.join(dataDir, 'embedded/pki'), 'admin'),
    );
    figures.push(
      await measureServices([embedded], () =>
        load('embedded (PGlite, in-process bus)', embeddedUrl, { tls: embeddedTls }),
      ),
    );
    figures.push(
      await measureServices([embedded], () =>
        load('embedded (PGlite, in-process bus)', embeddedUrl, {
          tls: embeddedTls,
          rate: 200,
          service: true,
        }),
      ),
    );
    await embedded.stop();
  }

  if (withDistributed) {
    const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
    if (!brokers)
      throw new Error(
        '--distributed needs VOP_TEST_DATABASE_URL and VOP_TEST_KAFKA_BROKERS (run infra/local/up.sh)',
      );
    const gatewayDb = await createTestDatabase('bench_gateway');
    const matchingDb = await createTestDatabase('bench_matching');
    const namespace = createTestNamespace('bench', brokers);
    const common = {
      KAFKA_BROKERS: brokers,
      VOP_KAFKA_NAMESPACE: namespace.name,
      VOP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_POOL_MAX: '20',
      VOP_RATE_LIMIT_TEST_PER_HOUR: '1000000',
      VOP_TEST_RATE_LIMITS: '{"default":100000000}',
    };
    // The distributed processes are the ones started from here on (measureServices reads them).
    const firstDistributed = processes.length;
    const matchingPorts = await Promise.all(Array.from({ length: instances }, () => freePort()));
    const gatewayPorts = await Promise.all(Array.from({ length: instances }, () => freePort()));
    for (const [index, port] of matchingPorts.entries()) {
      processes.push(
        startServiceProcess(
          `matching-${index + 1}`,
          path.join(servicesRoot, 'services/matching/dist/main.js'),
          {
            ...common,
            DATABASE_URL: matchingDb.url,
            VOP_KEYSTORE_DATABASE_URL: gatewayDb.url,
            VOP_INSTANCE_ID: `m${index + 1}`,
            VOP_PORT: String(port),
          },
          [],
          nodeArgs,
        ),
      );
    }
    for (const [index, port] of gatewayPorts.entries()) {
      processes.push(
        startServiceProcess(
          `gateway-${index + 1}`,
          path.join(servicesRoot, 'services/gateway/dist/main.js'),
          {
            ...common,
            DATABASE_URL: gatewayDb.url,
            VOP_INSTANCE_ID: `g${index + 1}`,
            VOP_PORT: String(port),
          },
          [],
          nodeArgs,
        ),
      );
    }
    const urls = gatewayPorts.map((port) => `https://127.0.0.1:${port}`);
    for (const url of urls) await waitReady(url, tls);
    await seedAccounts(urls[0] as string, tls, await clientTlsFrom(pki.dir, 'admin'));
    const target = `distributed (${instances} gateway${instances > 1 ? 's' : ''}, ${instances} matching, Kafka, PostgreSQL 15)`;
    const services = processes.slice(firstDistributed);
    if (!flags['paced-only'])
      figures.push(await measureServices(services, () => loadAcross(target, urls, { tls })));
    figures.push(
      await measureServices(services, () =>
        loadAcross(target, urls, { tls, rate: distributedRate }),
      ),
    );
    for (const process of processes.splice(0)) await process.stop();
    await gatewayDb.drop();
    await matchingDb.drop();
    await namespace.drop();
  }
}

try {
  await run();
} finally {
  for (const process of processes.splice(0)) await process.stop();
  await rm(dataDir, { recursive: true, force: true });
  if (gcDir !== undefined) await rm(gcDir, { recursive: true, force: true });
}

const bareRps = figures[0]?.requestsPerSecond ?? 1;
const lines = [
  `| target | load | req/s | p50 ms | p99 ms | errors | non-2xx | vs bare |`,
  `|---|---|---:|---:|---:|---:|---:|---:|`,
  ...figures.map(
    (f) =>
      `| ${f.target} | ${f.mode}${f.paced ? ` (${pacedNote(f.paced)})` : ''} | ${f.requestsPerSecond} | ${f.p50} | ${f.p99} | ${f.errors} | ${f.non2xx} | ${((100 * f.requestsPerSecond) / bareRps).toFixed(0)} % |`,
  ),
];
const cpuLines = figures
  .filter((f) => f.cpuMsPerRequest !== undefined)
  .map(
    (f) =>
      `- ${f.target}, ${f.mode}: ${Object.entries(f.cpuMsPerRequest ?? {})
        .map(([name, ms]) => `${name} ${ms.toFixed(3)}`)
        .join(', ')} (${f.requests} requests)`,
  );
const waitLines = figures
  .filter((f) => Object.keys(f.cpuWaitMsPerRequest ?? {}).length > 0)
  .map(
    (f) =>
      `- ${f.target}, ${f.mode}: ${Object.entries(f.cpuWaitMsPerRequest ?? {})
        .map(([name, ms]) => `${name} ${ms.all.toFixed(3)} (main thread ${ms.main.toFixed(3)})`)
        .join(', ')}`,
  );
const gcLines = figures
  .filter((f) => f.gc !== undefined)
  .flatMap((f) => [
    `- ${f.target}, ${f.mode}:`,
    ...Object.entries(f.gc ?? {}).map(([name, row]) => `  - ${describeGc(name, row)}`),
  ]);
process.stdout.write(
  `\nPOST /vop/verify, keep-alive HTTPS (TLS 1.3), ${duration} s per row, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}\n${lines.join('\n')}\n` +
    `\nCPU ms per request of each service process over its row (every thread, the warm-up included):\n${cpuLines.join('\n')}\n` +
    (waitLines.length === 0
      ? ''
      : `\nMs waited for a CPU per request (runnable, not running) over the same span, every thread:\n${waitLines.join('\n')}\n`) +
    (gcLines.length === 0
      ? ''
      : `\nGC of each service process over the same span (every thread; pauses are wall time):\n${gcLines.join('\n')}\n`) +
    `${context.footer()}\n`,
);
