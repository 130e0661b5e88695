import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ensureDevPki } from '@vop/pki';
import {
  createTestDatabase,
  eventually,
  freePort,
  germanIban,
  httpsClient,
  startServiceProcess,
  type HttpsClient,
  type ServiceProcess,
  type TestDatabase,
  createTestNamespace,
  type TestNamespace,
} from '@vop/testing';
import { pacedLoad } from './paced-load.js';
import { clientTlsFrom, type ClientTls } from './client-tls.js';
import { schemeRequestBody } from './scheme-request.js';

/**
 * One 10,000-entry batch from submission to resultsReady, and single checks (POST /vop/verify at a
 * fixed offered rate) idle and while the batch runs, in the same run. Embedded, and with
 * --distributed also gateway + matching + batch processes over real Kafka and PostgreSQL.
 * Usage: node bench/dist/batch.bench.js [--distributed] [--no-embedded] [--embedded-only]
 *   [--distributed-only] [--entries 10000] [--rate 100] [--idle 15] (seconds of idle single checks)
 *   [--batch-nice 10] (VOP_BATCH_NICE of the batch processes) [--one-matching] (one matching process
 *   with both roles, not one per role) [--pacing] (VOP_BATCH_PACING=true) [--profile <dir>] (CPU profiles of the services, written when
 *   they stop) [--timeline] (single checks beside the batch, per second)
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number): number =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const withDistributed =
  (args.includes('--distributed') || args.includes('--distributed-only')) &&
  !args.includes('--embedded-only');
const withEmbedded = !args.includes('--no-embedded') && !args.includes('--distributed-only');
const profileDir = args.includes('--profile') ? args[args.indexOf('--profile') + 1] : undefined;
/** Prints single checks' latencies beside the batch per second of its run (where the tail comes from). */
const withTimeline = args.includes('--timeline');
const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const ENTRIES = option('--entries', 10_000);
const RATE = option('--rate', 100);
const ACCOUNTS = 1000;
/** Long enough that the idle p99 is not a handful of answers (5 s gave 1 in 100 of 400). */
const IDLE_SECONDS = option('--idle', 15);
const BATCH_NICE = option('--batch-nice', 10);
/** Distributed: matching as one process with both roles (as before the roles), not one per role. */
const oneMatching = args.includes('--one-matching');
const pacing = args.includes('--pacing');

const holderName = (index: number): string => `Holder ${index} Nilsson`;
const holderIban = (index: number): string => germanIban(600_000 + index);

const schemeBody = (index: number): string =>
  schemeRequestBody(holderName(index), holderIban(index));

const singleCheckBodies = Array.from({ length: ACCOUNTS }, (_, index) => schemeBody(index));

/**
 * Single checks at a fixed offered rate, evenly paced (`paced-load.ts`): for `seconds`, or (with
 * `until`) until that promise settles, so the figures beside a batch cover its whole run. p50 and p99 in
 * ms; failures are answers that were not 2xx and requests never answered (30 s after the window).
 */
async function singleChecks(
  url: string,
  tls: ClientTls,
  seconds: number,
  until?: Promise<unknown>,
) {
  const result = await pacedLoad({
    url: `${url}/vop/verify`,
    rate: RATE,
    seconds,
    tls,
    bodies: singleCheckBodies,
    ...(until && { until, timeline: withTimeline }),
  });
  return {
    p50: result.p50,
    p99: result.p99,
    max: result.max,
    failures: result.errors + Math.max(0, result.sent - result.answered),
  };
}

async function seedAccounts(client: HttpsClient, admin: HttpsClient): Promise<void> {
  for (let index = 0; index < ACCOUNTS; index += 1) {
    const response = await admin.post('/accounts', {
      iban: holderIban(index),
      name: holderName(index),
    });
    if (response.status !== 201) throw new Error(`seeding: ${response.status} ${response.text}`);
  }
  await eventually(
    async () => {
      const response = await client.request('POST', '/vop/verify', {
        rawBody: schemeBody(ACCOUNTS - 1),
        headers: { 'content-type': 'application/json' },
      });
      return response.body?.partyNameMatch === 'MTCH' ? true : undefined;
    },
    { timeoutMs: 120_000, what: 'accounts projected' },
  );
}

interface Figures {
  target: string;
  batchSeconds: number;
  submitSeconds: number;
  idle: { p50: number; p99: number; max: number; failures: number };
  during: { p50: number; p99: number; max: number; failures: number };
}

/** Idle single checks, then the batch with single checks beside it; seconds to resultsReady. */
async function measure(target: string, url: string, tls: ClientTls): Promise<Figures> {
  const client = httpsClient({ baseUrl: url, ...tls });
  const idle = await singleChecks(url, tls, IDLE_SECONDS);
  const batchId = `bench-${randomUUID().slice(0, 8)}`;
  const verifications = Array.from({ length: ENTRIES }, (_, index) => ({
    id: `e-${index}`,
    iban: holderIban(index % ACCOUNTS),
    name: index % 4 === 3 ? 'Somebody Else' : holderName(index % ACCOUNTS),
  }));
  let submitSeconds = 0;
  // The single checks beside the batch start first (their warm-up second is over when it is
  // submitted) and run until it is ready.
  let batchEnded: () => void = () => undefined;
  const beside = singleChecks(
    url,
    tls,
    300,
    new Promise<void>((resolve) => (batchEnded = resolve)),
  );
  await delay(1500);
  const started = performance.now();
  const batchRun = (async () => {
    const submitted = await client.post('/api/v1/batch', { batchId, verifications });
    if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${submitted.text}`);
    submitSeconds = (performance.now() - started) / 1000;
    await eventually(
      async () => {
        const status = await client.get(`/api/v1/batch/${batchId}`);
        return status.body?.resultsReady === true ? true : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 50, what: 'resultsReady' },
    );
    return (performance.now() - started) / 1000;
  })();
  void batchRun.then(batchEnded, batchEnded);
  const batchSeconds = await batchRun;
  const during = await beside;
  const results = await client.get(`/api/v1/batch/${batchId}/results?limit=10000`);
  if (results.body?.results?.length !== ENTRIES) throw new Error('not every entry answered');
  client.close();
  return { target, batchSeconds, submitSeconds, idle, during };
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

const loadAtStart = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-batch-bench-'));
const pki = await ensureDevPki(dataDir);
const figures: Figures[] = [];
const processes: ServiceProcess[] = [];
const databases: TestDatabase[] = [];
/** Each distributed run's topics, deleted at the end with its databases. */
const namespaces: TestNamespace[] = [];
// One participant submits every batch: lift its entry budget (60 × 6,000 an hour by default).
const limits = {
  VOP_RATE_LIMIT_TEST_PER_HOUR: '1000000',
  VOP_TEST_RATE_LIMITS: '{"default":100000000}',
  LOG_LEVEL: 'warn',
};

async function embedded(): Promise<void> {
  const port = await freePort();
  const process = startServiceProcess(
    'embedded',
    path.join(repoRoot, 'services/embedded/dist/main.js'),
    { ...limits, VOP_DATA_DIR: path.join(dataDir, 'embedded'), VOP_PORT: String(port) },
    [],
    nodeArgs,
  );
  processes.push(process);
  const url = `https://127.0.0.1:${port}`;
  const pkiDir = path.join(dataDir, 'embedded/pki');
  // The PKI is written at first start: read it again until a probe with it answers ready.
  const tls = await eventually(
    async () => {
      const candidate = await clientTlsFrom(pkiDir, 'client').catch(() => undefined);
      if (!candidate) return undefined;
      const probe = httpsClient({ baseUrl: url, ...candidate });
      const ready = (await probe.get('/readyz').catch(() => undefined))?.status === 200;
      probe.close();
      return ready ? candidate : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200, what: 'embedded ready' },
  );
  const client = httpsClient({ baseUrl: url, ...tls });
  const admin = httpsClient({ baseUrl: url, ...(await clientTlsFrom(pkiDir, 'admin')) });
  await seedAccounts(client, admin);
  client.close();
  admin.close();
  figures.push(await measure('embedded (PGlite, in-process bus)', url, tls));
  await process.stop();
}

async function distributed(): Promise<void> {
  const brokers = globalThis.process.env.VOP_TEST_KAFKA_BROKERS;
  if (!brokers)
    throw new Error('--distributed needs VOP_TEST_DATABASE_URL and VOP_TEST_KAFKA_BROKERS');
  const [gatewayDb, matchingDb, batchDb] = [
    await createTestDatabase('bench_batch_gateway'),
    await createTestDatabase('bench_batch_matching'),
    await createTestDatabase('bench_batch_batch'),
  ];
  databases.push(gatewayDb, matchingDb, batchDb);
  const namespace = createTestNamespace('bench', brokers);
  namespaces.push(namespace);
  const common = {
    ...limits,
    KAFKA_BROKERS: brokers,
    VOP_KAFKA_NAMESPACE: namespace.name,
    VOP_DATA_DIR: dataDir,
    DATABASE_POOL_MAX: '20',
    VOP_INTERNAL_SECRET: randomUUID() + randomUUID(),
    VOP_BATCH_NICE: String(BATCH_NICE),
    VOP_BATCH_PACING: String(pacing),
  };
  const main = (name: string): string => path.join(repoRoot, `services/${name}/dist/main.js`);
  const gatewayPort = await freePort();
  const batchPort = await freePort();
  processes.push(
    startServiceProcess(
      'gateway',
      main('gateway'),
      {
        ...common,
        DATABASE_URL: gatewayDb.url,
        VOP_PORT: String(gatewayPort),
        VOP_SERVICE_URLS: JSON.stringify({ batch: `http://127.0.0.1:${batchPort}` }),
      },
      [],
      nodeArgs,
    ),
  );
  const url = `https://127.0.0.1:${gatewayPort}`;
  const tls = await clientTlsFrom(pki.dir, 'client');
  await waitReady(url, tls);
  const keystore = { VOP_KEYSTORE_DATABASE_URL: gatewayDb.url };
  // One matching process per role: the batch one runs niced (VOP_BATCH_NICE), as docs/operations.md starts it.
  const matchingRoles = oneMatching ? ['single,batch'] : ['single', 'batch'];
  for (const roles of matchingRoles)
    processes.push(
      startServiceProcess(
        `matching-${roles.replace(',', '-')}`,
        main('matching'),
        {
          ...common,
          ...keystore,
          DATABASE_URL: matchingDb.url,
          VOP_PORT: String(await freePort()),
          VOP_MATCHING_ROLES: roles,
        },
        [],
        nodeArgs,
      ),
    );
  processes.push(
    startServiceProcess(
      'batch',
      main('batch'),
      {
        ...common,
        ...keystore,
        DATABASE_URL: batchDb.url,
        VOP_PORT: String(batchPort),
      },
      [],
      nodeArgs,
    ),
  );
  const client = httpsClient({ baseUrl: url, ...tls });
  const admin = httpsClient({ baseUrl: url, ...(await clientTlsFrom(pki.dir, 'admin')) });
  await seedAccounts(client, admin);
  // Warm the batch path (topics, consumer groups) with a small batch first.
  await client.post('/api/v1/batch', {
    batchId: 'warm-up',
    verifications: [{ id: '1', iban: holderIban(0), name: holderName(0) }],
  });
  await eventually(
    async () =>
      (await client.get('/api/v1/batch/warm-up')).body?.resultsReady === true ? true : undefined,
    { timeoutMs: 120_000, intervalMs: 100, what: 'warm-up batch' },
  );
  client.close();
  admin.close();
  figures.push(
    await measure('distributed (gateway, matching, batch; Kafka, PostgreSQL 15)', url, tls),
  );
}

try {
  if (withEmbedded) await embedded();
  if (withDistributed) await distributed();
} finally {
  for (const process of processes.splice(0)) await process.stop();
  for (const database of databases) await database.drop();
  for (const namespace of namespaces) await namespace.drop();
  await rm(dataDir, { recursive: true, force: true });
}

const lines = [
  `| target | entries | submit (202) s | submission → resultsReady s | single p50 / p99 / max idle ms | p50 / p99 / max beside ms | p99 beside / idle | single-check failures |`,
  `|---|---:|---:|---:|---:|---:|---:|---:|`,
  ...figures.map(
    (f) =>
      `| ${f.target} | ${ENTRIES} | ${f.submitSeconds.toFixed(2)} | ${f.batchSeconds.toFixed(2)} | ${f.idle.p50} / ${f.idle.p99} / ${f.idle.max} | ${f.during.p50} / ${f.during.p99} / ${f.during.max} | ${(f.during.p99 / Math.max(1, f.idle.p99)).toFixed(1)} | ${f.idle.failures + f.during.failures} |`,
  ),
];
globalThis.process.stdout.write(
  `\n${ENTRIES}-entry batch; single checks POST /vop/verify at ${RATE} req/s offered, ${IDLE_SECONDS} s idle, then beside the batch from its submission to resultsReady; distributed: ${oneMatching ? 'one matching process' : 'matching per role'}, VOP_BATCH_NICE=${BATCH_NICE}, VOP_BATCH_PACING=${pacing}; load average at start ${loadAtStart}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${globalThis.process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n${lines.join('\n')}\n`,
);
