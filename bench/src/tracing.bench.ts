import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createHttpApp, createRouter, requestMetadata } from '@vop/http';
import { createInProcessBus } from '@vop/messaging';
import { startServiceTracing } from '@vop/lifecycle';
import { createLogger } from '@vop/observability';
import { runContext } from './run-context.js';

/**
 * What tracing costs an HTTP edge that publishes one message per request and consumes it: the same
 * server (createHttpApp, a route that publishes on the in-process bus with the request's traceparent,
 * a subscriber) in three child processes, tracing started as a service starts it
 * (`startServiceTracing`): no SDK started, the SDK without an exporter (ids only, what a deployment
 * without OTEL_EXPORTER_OTLP_ENDPOINT runs: the message keeps the request's), and the SDK exporting
 * every span over OTLP/HTTP to a receiver in this process. Measured by turns (none, ids, export; BENCH_TURNS times) with autocannon. The
 * figure to compare is the server's CPU time per request (process.cpuUsage of the server process over
 * its turn): on a shared machine throughput swings with the neighbours' load, CPU per request much less.
 * Ratios are to "none" in the same run.
 */
const MODES = ['none', 'ids', 'export'] as const;
type Mode = (typeof MODES)[number];
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const TURNS = Number(process.env['BENCH_TURNS'] ?? 4);
const CONNECTIONS = 16;

async function serve(mode: Mode): Promise<void> {
  if (mode !== 'none') startServiceTracing('bench');
  const bus = createInProcessBus();
  await bus.ensureTopics([{ name: 'bench', partitions: 1 }]);
  await bus.subscribe({ groupId: 'bench', topics: ['bench'], handler: async () => undefined });
  const router = createRouter();
  router.post('/verify', async (req, res) => {
    const metadata = requestMetadata(req);
    const headers = metadata.traceparent ? { traceparent: metadata.traceparent } : undefined;
    await bus.publish('bench', [{ key: 'k', value: '{}', ...(headers && { headers }) }]);
    res.status(201).json({ status: 'PENDING' });
  });
  const app = createHttpApp({
    routers: [router],
    respondingPsp: 'BENCHDEFFXXX',
    logger: createLogger({ service: 'bench', level: 'warn' }),
  });
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.send?.((server.address() as AddressInfo).port);
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send?.(user + system);
  });
}

/** The child's CPU time so far, in microseconds. */
async function cpuOf(child: ChildProcess): Promise<number> {
  const answer = once(child, 'message');
  child.send('cpu');
  const [micros] = (await answer) as [number];
  return micros;
}

async function main(): Promise<void> {
  const context = runContext();
  let spans = 0;
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      spans += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const children: ChildProcess[] = [];
  const ports = new Map<Mode, number>();
  for (const mode of MODES) {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', mode], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: mode === 'export' ? receiverUrl : '',
      },
    });
    children.push(child);
    const [port] = (await once(child, 'message')) as [number];
    ports.set(mode, port);
  }
  const results = new Map<Mode, { rps: number[]; p99: number[]; cpuMicros: number[] }>();
  for (let turn = 0; turn < TURNS; turn++) {
    for (const [index, mode] of MODES.entries()) {
      const child = children[index]!;
      const cpuBefore = await cpuOf(child);
      const result = await autocannon({
        url: `http://127.0.0.1:${ports.get(mode)}/verify`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: SECONDS,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const cpuAfter = await cpuOf(child);
      const figures = results.get(mode) ?? { rps: [], p99: [], cpuMicros: [] };
      figures.rps.push(result.requests.average);
      figures.p99.push(result.latency.p99);
      figures.cpuMicros.push((cpuAfter - cpuBefore) / Math.max(1, result.requests.total));
      results.set(mode, figures);
    }
  }
  for (const child of children) child.kill('SIGTERM');
  receiver.close();

  // Medians: one turn disturbed by a neighbour does not move them.
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const baseline = results.get('none')!;
  const lines = [
    context.header,
    '',
    `| tracing | server CPU µs/request | ratio to none | req/s (median of ${TURNS} × ${SECONDS} s) | ratio to none | p99 ms |`,
    '|---|---:|---:|---:|---:|---:|',
    ...MODES.map((mode) => {
      const { rps, p99, cpuMicros } = results.get(mode)!;
      const cpu = median(cpuMicros);
      return `| ${mode} | ${cpu.toFixed(0)} | ${(cpu / median(baseline.cpuMicros)).toFixed(2)} | ${median(rps).toFixed(0)} | ${(median(rps) / median(baseline.rps)).toFixed(2)} | ${median(p99).toFixed(1)} |`;
    }),
    '',
    `spans received by the OTLP receiver: ${spans}`,
    context.footer(),
  ];
  console.log(lines.join('\n'));
}

const serveIndex = process.argv.indexOf('--serve');
if (serveIndex >= 0) await serve(process.argv[serveIndex + 1] as Mode);
else await main();
