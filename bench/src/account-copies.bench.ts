import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ensureDevPki } from '@vop/pki';
import {
  createTestDatabase,
  createTestNamespace,
  eventually,
  freePort,
  germanIban,
  httpsClient,
  startServiceProcess,
  type ServiceProcess,
  type TestDatabase,
} from '@vop/testing';
import { clientTlsFrom } from './client-tls.js';
import { runContext } from './run-context.js';
import { schemeRequestBody } from './scheme-request.js';

/**
 * How far the distributed services' copies of the accounts trail the account events
 * (`account_copy_lag_seconds{copy}`, docs/batches-and-accounts.md "When a written account becomes
 * verifiable"): accounts written through gateway A at a paced rate, each checked on A the moment its
 * write is answered (read your writes: NOAP counted), and on a second gateway B, which had answered
 * NOAP for the IBAN just before the write (so it kept that), until B answers MTCH (the time from A's
 * answer). Then each copy's quantiles from its histogram (interpolated in the bucket, as Prometheus's
 * histogram_quantile does).
 * Usage: node bench/dist/account-copies.bench.js [--rate 50] (writes a second) [--seconds 30]
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number): number =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const RATE = option('--rate', 50);
const SECONDS = option('--seconds', 30);
const WRITES = RATE * SECONDS;
/** A bound on writes in flight: a slower service makes the client wait, as a bank's loader would. */
const IN_FLIGHT = 64;

type Buckets = { le: number; count: number }[];

/** Each copy's cumulative buckets of account_copy_lag_seconds on one /metrics page. */
function lagHistograms(page: string): Map<string, Buckets> {
  const byCopy = new Map<string, Buckets>();
  for (const [, labels, count] of page.matchAll(
    /^account_copy_lag_seconds_bucket\{([^}]*)\} (\d+)/gm,
  )) {
    const copy = /copy="([^"]+)"/.exec(labels as string)?.[1];
    const le = /le="([^"]+)"/.exec(labels as string)?.[1];
    if (copy === undefined || le === undefined) continue;
    const buckets = byCopy.get(copy) ?? [];
    buckets.push({ le: le === '+Inf' ? Infinity : Number(le), count: Number(count) });
    byCopy.set(copy, buckets);
  }
  return byCopy;
}

/** The q-quantile of cumulative buckets, linear within its bucket (histogram_quantile). */
function quantile(buckets: Buckets, q: number): number {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const total = sorted.at(-1)?.count ?? 0;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of sorted) {
    if (count >= rank) {
      if (le === Infinity) return lower;
      return lower + ((le - lower) * (rank - below)) / Math.max(1, count - below);
    }
    lower = le;
    below = count;
  }
  return lower;
}

/** p50 / p90 / p99 / max of exact samples, in ms. */
function percentiles(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(0);
  return `p50 ${at(0.5)} ms, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${at(1)} (${sorted.length} writes)`;
}

const context = runContext();
const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
if (!brokers || !process.env.VOP_TEST_DATABASE_URL)
  throw new Error('needs VOP_TEST_DATABASE_URL and VOP_TEST_KAFKA_BROKERS (run infra/local/up.sh)');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-account-copies-bench-'));
const pki = await ensureDevPki(dataDir);
const databases: TestDatabase[] = [];
const processes: ServiceProcess[] = [];
const namespace = createTestNamespace('bench-copies', brokers);
try {
  for (const name of ['gateway', 'matching', 'batch'])
    databases.push(await createTestDatabase(`bench_copies_${name}`));
  const [gatewayDb, matchingDb, batchDb] = databases as [TestDatabase, TestDatabase, TestDatabase];
  const common = {
    KAFKA_BROKERS: brokers,
    VOP_KAFKA_NAMESPACE: namespace.name,
    VOP_DATA_DIR: dataDir,
    VOP_INTERNAL_SECRET: randomUUID() + randomUUID(),
    VOP_TEST_RATE_LIMITS: '{"default":100000000}',
    LOG_LEVEL: 'warn',
  };
  const keystore = { VOP_KEYSTORE_DATABASE_URL: gatewayDb.url };
  const main = (name: string): string => path.join(repoRoot, `services/${name}/dist/main.js`);
  const internal = { matching: await freePort(), batch: await freePort() };
  processes.push(
    startServiceProcess('matching', main('matching'), {
      ...common,
      ...keystore,
      DATABASE_URL: matchingDb.url,
      VOP_PORT: String(internal.matching),
    }),
    startServiceProcess('batch', main('batch'), {
      ...common,
      ...keystore,
      DATABASE_URL: batchDb.url,
      VOP_PORT: String(internal.batch),
    }),
  );
  const gatewayPorts = [await freePort(), await freePort()];
  for (const [index, port] of gatewayPorts.entries())
    processes.push(
      startServiceProcess(`gateway-${index}`, main('gateway'), {
        ...common,
        DATABASE_URL: gatewayDb.url,
        VOP_PORT: String(port),
        VOP_INSTANCE_ID: `gateway-${index}`,
        VOP_SERVICE_URLS: JSON.stringify({ batch: `http://127.0.0.1:${internal.batch}` }),
      }),
    );
  const [url, otherUrl] = gatewayPorts.map((port) => `https://127.0.0.1:${port}`) as [
    string,
    string,
  ];
  const participant = await clientTlsFrom(pki.dir, 'client');
  const client = httpsClient({ baseUrl: url, ...participant });
  const other = httpsClient({ baseUrl: otherUrl, ...participant });
  const admin = httpsClient({ baseUrl: url, ...(await clientTlsFrom(pki.dir, 'admin')) });
  const metricsOf = async () => {
    const pages = await Promise.all([
      client.get('/metrics').then((page) => page.text),
      ...Object.values(internal).map(async (port) =>
        (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
      ),
    ]);
    return new Map(pages.flatMap((page) => [...lagHistograms(page)]));
  };
  await eventually(
    async () => {
      for (const started of processes)
        if (started.child.exitCode !== null)
          throw new Error(`${started.name} exited:\n${started.output()}`);
      for (const gateway of [client, other])
        if ((await gateway.get('/readyz').catch(() => undefined))?.status !== 200) return undefined;
      for (const port of Object.values(internal))
        if ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status !== 200)
          return undefined;
      return true;
    },
    { timeoutMs: 120_000, intervalMs: 250, what: 'every service ready' },
  );

  let noap = 0;
  let failed = 0;
  /** For each write whose first check on B (sent once A had answered) was not MTCH: ms until B's was. */
  const otherGatewayMs: number[] = [];
  const outcome = async (gateway: typeof client, name: string, iban: string) =>
    (
      await gateway.request('POST', '/vop/verify', {
        rawBody: schemeRequestBody(name, iban),
        headers: { 'content-type': 'application/json' },
      })
    ).body?.partyNameMatch as string | undefined;
  let inFlight = 0;
  const started = performance.now();
  const writes: Promise<void>[] = [];
  for (let index = 0; index < WRITES; index++) {
    const due = started + (index * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await delay(wait);
    while (inFlight >= IN_FLIGHT) await delay(1);
    inFlight++;
    const iban = germanIban(700_000 + index);
    const name = `Copy Holder ${index} Lindqvist`;
    writes.push(
      (async () => {
        try {
          await outcome(other, name, iban);
          const created = await admin.post('/accounts', { iban, name });
          if (created.status !== 201) {
            failed++;
            return;
          }
          // B first: A's own check would give B's notification time to arrive.
          const answered = performance.now();
          if ((await outcome(other, name, iban)) !== 'MTCH') {
            while ((await outcome(other, name, iban)) !== 'MTCH') await delay(2);
            otherGatewayMs.push(performance.now() - answered);
          }
          if ((await outcome(client, name, iban)) === 'NOAP') noap++;
        } finally {
          inFlight--;
        }
      })(),
    );
  }
  await Promise.all(writes);
  const writeSeconds = (performance.now() - started) / 1000;
  // Every copy behind the gateway applies each opening once (its histogram counts it).
  const copies = await eventually(
    async () => {
      const histograms = await metricsOf();
      const behind = [...histograms].filter(
        ([copy]) => !copy.endsWith('gateway-decision-accounts'),
      );
      return behind.length >= 3 &&
        behind.every(([, buckets]) => Math.max(...buckets.map((b) => b.count)) >= WRITES - failed)
        ? histograms
        : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 500, what: 'every copy caught up' },
  );
  client.close();
  other.close();
  admin.close();

  const rows = [...copies].map(([copy, buckets]) => {
    const count = Math.max(0, ...buckets.map((bucket) => bucket.count));
    const ms = (q: number) => (count === 0 ? '–' : (quantile(buckets, q) * 1000).toFixed(0));
    return `| ${copy.slice(namespace.name.length)} | ${count} | ${ms(0.5)} | ${ms(0.9)} | ${ms(0.99)} |`;
  });
  process.stdout.write(
    [
      context.header,
      `writes        ${WRITES} POST /accounts on gateway A at ${RATE}/s offered (${(WRITES / writeSeconds).toFixed(0)}/s served), each checked at once on B, then on A`,
      `read your writes: ${noap} NOAP of ${WRITES - failed} checks; ${failed} writes refused`,
      `gateway B (had answered NOAP before the write): first check after A's answer not MTCH for ${otherGatewayMs.length} writes${otherGatewayMs.length > 0 ? `; until B's MTCH ${percentiles(otherGatewayMs)}` : ''}`,
      '',
      '| copy | events applied late | lag p50 ms | p90 ms | p99 ms |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
      context.footer(),
      '',
    ].join('\n'),
  );
} finally {
  for (const started of processes.splice(0)) await started.stop();
  for (const database of databases) await database.drop();
  await namespace.drop();
  await rm(dataDir, { recursive: true, force: true });
}
