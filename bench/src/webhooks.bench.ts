import { randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@vop/config';
import { topicNames, type IntegrationEnvelope } from '@vop/contracts';
import { startEmbedded } from '@vop/embedded';
import { createPostgresClient } from '@vop/event-store';
import { principalHeaders } from '@vop/http';
import { createKafkaBus } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import {
  createTestDatabase,
  eventually,
  freePort,
  germanIban,
  httpsClient,
  requireEnv,
  startServiceProcess,
  type ServiceProcess,
  createTestNamespace,
} from '@vop/testing';
import { Webhook } from 'standardwebhooks';
import { readFile } from 'node:fs/promises';

/**
 * Completion-to-delivery of webhooks: N verifications complete, each is delivered signed to a local
 * receiver that checks the signature (standardwebhooks) and notes when it arrived; the figure is
 * arrival minus the completion's `completed_at`. Embedded (default): the whole service in this
 * process, verifications through POST /verify. --distributed: the dispatcher as its own process on
 * PostgreSQL, completions published to Kafka by this process.
 * Usage: node bench/dist/webhooks.bench.js [--distributed] [--count 1000] [--rate 200] [--record]
 * (--distributed honours VOP_WEBHOOK_ENDPOINT_CONCURRENCY for the dispatcher it starts)
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const COUNT = args.includes('--count') ? Number(args[args.indexOf('--count') + 1]) : 1000;
const distributed = args.includes('--distributed');
/** Completions (or verifications) per second; 0: as fast as they go (a burst). */
const RATE = args.includes('--rate') ? Number(args[args.indexOf('--rate') + 1]) : 0;
const SECRET = 'a-bench-receiver-secret-0123';
const CONCURRENCY = 16;

interface Arrival {
  requestId: string;
  latencyMs: number;
}

async function startReceiver() {
  const verifier = new Webhook(new TextEncoder().encode(SECRET), { format: 'raw' });
  const arrivals = new Map<string, Arrival>();
  let requests = 0;
  let badSignatures = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const arrivedAt = Date.now();
      requests++;
      try {
        const payload = verifier.verify(body, req.headers as Record<string, string>) as {
          data: { request_id: string; completed_at: string };
        };
        const { request_id: requestId, completed_at: completedAt } = payload.data;
        if (!arrivals.has(requestId))
          arrivals.set(requestId, { requestId, latencyMs: arrivedAt - Date.parse(completedAt) });
        res.writeHead(204).end();
      } catch {
        badSignatures++;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    stats: () => ({ requests, badSignatures }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Runs `count` tasks, CONCURRENCY at a time; with --rate, task i starts no sooner than i / rate s. */
async function pool(count: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const begun = Date.now();
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const due = RATE ? begun + (index * 1000) / RATE - Date.now() : 0;
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** The whole service in this process: verifications through the edge, deliveries from matching's completions. */
async function runEmbedded(receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-bench-webhooks-'));
  const service = await startEmbedded({
    config: loadConfig({
      VOP_DATA_DIR: dataDir,
      VOP_PORT: '0',
      LOG_LEVEL: 'warn',
      VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    }),
    logger: createLogger({ service: 'bench', level: 'warn' }),
    inMemory: true,
  });
  const read = (file: string) => readFile(file, 'utf8');
  const caPem = await read(service.pki.caPath);
  const client = httpsClient({
    baseUrl: service.url,
    caPem,
    certPem: await read(service.pki.clientCertPath),
    keyPem: await read(service.pki.clientKeyPath),
  });
  const admin = httpsClient({
    baseUrl: service.url,
    caPem,
    certPem: await read(service.pki.adminCertPath),
    keyPem: await read(service.pki.adminKeyPath),
  });
  try {
    const registered = await client.post('/webhooks', {
      url: receiver.url,
      events: ['verification.success'],
      secret: SECRET,
    });
    if (registered.status !== 201) throw new Error(`registration: ${registered.text}`);
    const holders = Array.from({ length: 100 }, (_, index) => ({
      iban: germanIban(880_000 + index),
      name: `Bench Holder ${index}`,
    }));
    for (const holder of holders) await admin.post('/accounts', holder);
    const started = Date.now();
    await pool(COUNT, async (index) => {
      const holder = holders[index % holders.length] as (typeof holders)[number];
      const receipt = await client.post('/verify', holder);
      if (receipt.status !== 201) throw new Error(`verify: ${receipt.text}`);
    });
    const published = (Date.now() - started) / 1000;
    await eventually(async () => (receiver.arrivals.size >= COUNT ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 50,
      what: 'every delivery',
    });
    return { seconds: (Date.now() - started) / 1000, published };
  } finally {
    client.close();
    admin.close();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The dispatcher as its own process on PostgreSQL and Kafka; completions published from here. */
async function runDistributed(receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
  const database = await createTestDatabase('bench_webhooks');
  const namespace = createTestNamespace('bench-wh', brokers);
  const secret = randomUUID() + randomUUID();
  const port = await freePort();
  const dispatcher: ServiceProcess = startServiceProcess(
    'webhook-dispatcher',
    path.join(repoRoot, 'services/webhook-dispatcher/dist/main.js'),
    {
      DATABASE_URL: database.url,
      KAFKA_BROKERS: brokers,
      VOP_KAFKA_NAMESPACE: namespace.name,
      VOP_PORT: String(port),
      VOP_INTERNAL_SECRET: secret,
      VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      LOG_LEVEL: process.env.BENCH_DISPATCHER_LOG_LEVEL ?? 'warn',
      ...(process.env.VOP_WEBHOOK_ENDPOINT_CONCURRENCY && {
        VOP_WEBHOOK_ENDPOINT_CONCURRENCY: process.env.VOP_WEBHOOK_ENDPOINT_CONCURRENCY,
      }),
    },
  );
  const bus = createKafkaBus({ brokers: brokers.split(','), clientId: 'bench-webhooks' });
  const base = `http://127.0.0.1:${port}`;
  try {
    await eventually(
      async () => {
        if (dispatcher.child.exitCode !== null) throw new Error(dispatcher.output());
        return (await fetch(`${base}/readyz`).catch(() => null))?.status === 200 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'dispatcher ready' },
    );
    const participant = {
      kind: 'certificate',
      participantId: 'PSDDE-BENCH-1',
      fingerprint: '00'.repeat(32),
      admin: false,
    } as const;
    const registered = await fetch(`${base}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...principalHeaders(participant, secret, new Date()),
      },
      body: JSON.stringify({ url: receiver.url, events: ['verification.success'], secret: SECRET }),
    });
    if (registered.status !== 201) throw new Error(`registration: ${await registered.text()}`);
    const topic = topicNames(namespace.name).verificationCompleted;
    const started = Date.now();
    await pool(COUNT, async () => {
      const verificationId = randomUUID();
      const envelope: IntegrationEnvelope = {
        eventId: randomUUID(),
        type: 'VerificationCompleted',
        version: 1,
        occurredAt: new Date().toISOString(),
        correlationId: verificationId,
        data: {
          verificationId,
          family: 'scheme',
          outcome: 'MTCH',
          score: 1,
          reasons: [],
          participant: participant.participantId,
          completedAt: new Date().toISOString(),
        },
      };
      await bus.publish(topic, [{ key: verificationId, value: JSON.stringify(envelope) }]);
    });
    const published = (Date.now() - started) / 1000;
    await eventually(async () => (receiver.arrivals.size >= COUNT ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 50,
      what: 'every delivery',
    }).catch(async (error: unknown) => {
      const sql = createPostgresClient({ connectionString: database.url, max: 1 });
      const { rows } = await sql
        .query(`SELECT status, count(*)::int AS n FROM webhooks.deliveries GROUP BY status`)
        .finally(() => sql.close());
      throw new Error(
        `${receiver.arrivals.size} delivered, receiver ${JSON.stringify(receiver.stats())}, ` +
          `queue ${JSON.stringify(rows)}; dispatcher said:\n${dispatcher.output()}`,
        { cause: error },
      );
    });
    return { seconds: (Date.now() - started) / 1000, published };
  } finally {
    await bus.close();
    await dispatcher.stop();
    await database.drop();
    await namespace.drop();
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

const receiver = await startReceiver();
let seconds: number;
let published: number;
try {
  ({ seconds, published } = distributed
    ? await runDistributed(receiver)
    : await runEmbedded(receiver));
} finally {
  await receiver.close();
}
const latencies = [...receiver.arrivals.values()].map((a) => a.latencyMs).sort((a, b) => a - b);
const { requests, badSignatures } = receiver.stats();
const mode = `${
  distributed
    ? 'distributed (dispatcher process, PostgreSQL 15, Kafka)'
    : 'embedded (PGlite, in-process bus)'
}, ${RATE ? `${RATE}/s` : 'burst'}`;
const row = `| ${mode} | ${COUNT} | ${latencies.length} | ${requests} | ${badSignatures} | ${percentile(latencies, 50)} | ${percentile(latencies, 90)} | ${percentile(latencies, 99)} | ${latencies.at(-1)} | ${(COUNT / seconds).toFixed(0)} | ${published.toFixed(1)} s |`;
const table = [
  '| mode | completions | delivered (unique) | receiver requests | bad signatures | p50 ms | p90 ms | p99 ms | max ms | deliveries/s | submitted in |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  row,
].join('\n');
const header = `${new Date().toISOString()} — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}, load average ${os
  .loadavg()
  .map((value) => value.toFixed(2))
  .join(' ')}; command: node bench/dist/webhooks.bench.js ${args.join(' ')}`;
process.stdout.write(`\n${header}\n\n${table}\n`);
if (args.includes('--record'))
  await appendFile(path.join(repoRoot, 'bench/RESULTS.md'), `\n${header}\n\n${table}\n`);
