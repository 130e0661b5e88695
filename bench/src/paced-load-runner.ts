import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { z } from '@vop/contracts';
import { RunnerJob, WINDOW_OPEN, type RunnerFigures } from './paced-load-contract.js';

/**
 * The child process of `paced-load.ts`: sends POSTs at an even pace (request n is due n/rate s after
 * the start) over a bounded pool of keep-alive mutual TLS connections, as a bank's client would, and
 * prints one JSON line of figures when the time is up or at SIGTERM (the window then ends there).
 *
 * A request's latency runs from the moment it was due, so time spent queued for a free connection in
 * the client counts (an overloaded service shows as a growing queue, not as fewer requests sent). The
 * pool's connections open during the warm-up, which is not counted. What was sent in the window is
 * waited for (up to `GRACE_MS`) after it closes, so a slow answer counts as slow, not as missing.
 */
const GRACE_MS = 30_000;

const job = RunnerJob.parse(JSON.parse(await readFile(process.argv[2] ?? '', 'utf8')));
const bodies = z
  .array(z.string())
  .min(1)
  .parse(JSON.parse(await readFile(job.bodiesPath, 'utf8')));
const [ca, cert, key] = await Promise.all(
  [job.caPath, job.certPath, job.keyPath].map((file) => readFile(file)),
);
const target = new URL(job.url);
// undici, not node:https: at 1,000 req/s node:https's client took 33-43 % of a core on a 2-core box
// that the service under test shares (bench/RESULTS.md §1).
const pool = new Pool(target.origin, {
  connections: job.connections,
  pipelining: 1,
  keepAliveTimeout: 60_000,
  connect: { ca, cert, key },
});

const start = performance.now();
const windowStart = start + job.warmUpSeconds * 1000;
// The client shares the box it measures: its own stalls (bench/RESULTS.md §1) are
// reported beside the latencies they inflate. Its samples are the gaps between turns of a 10 ms timer.
const LOOP_TIMER_MS = 10;
const clientLoop = monitorEventLoopDelay({ resolution: LOOP_TIMER_MS });
setTimeout(() => {
  clientLoop.enable();
  // The parent may start what the window is to measure only now (paced-load.ts `onWindowOpen`).
  process.stderr.write(`${WINDOW_OPEN}\n`);
}, job.warmUpSeconds * 1000).unref();
let windowEnd = Number.POSITIVE_INFINITY;
let sent = 0;
let sentInWindow = 0;
let settledInWindow = 0;
/** [ms after the window opened that the request was due, ms it took], for answers in the window. */
const answers: [number, number][] = [];
const errorCodes: Record<string, number> = {};
/** The X-Processing-Time-Ms of the answers in the window that carried one. */
const serviceTimes: number[] = [];
/** Answers (to whatever was sent) that arrived while the window was open: the rate served. */
let arrivedInWindow = 0;

const pick = (sorted: number[], p: number): number =>
  sorted.length === 0
    ? 0
    : Math.round(
        sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0,
      );

function countError(code: string): void {
  errorCodes[code] = (errorCodes[code] ?? 0) + 1;
}

function send(dueAt: number): void {
  const body = bodies[sent++ % bodies.length] ?? '';
  const inWindow = dueAt >= windowStart && dueAt <= windowEnd;
  if (inWindow) sentInWindow++;
  let settled = false;
  const settle = (status: number | undefined, serviceMs?: number): void => {
    // A socket error after the answer ended must not count the request twice.
    if (settled) return;
    settled = true;
    const now = performance.now();
    if (now >= windowStart && now <= windowEnd) arrivedInWindow++;
    if (!inWindow) return;
    settledInWindow++;
    if (status === undefined) return countError('-1');
    answers.push([dueAt - windowStart, now - dueAt]);
    if (serviceMs !== undefined) serviceTimes.push(serviceMs);
    if (status >= 400) countError(String(status));
  };
  pool
    .request({
      path: target.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    .then(async (response) => {
      await response.body.dump();
      const processing = Number(response.headers['x-processing-time-ms']);
      settle(response.statusCode, Number.isFinite(processing) ? processing : undefined);
    })
    .catch(() => settle(undefined));
}

/**
 * The warm-up ramps the rate from a tenth of it to all of it, so a service that has just started (its
 * code not yet compiled by V8, its caches empty) is not met at once by the full rate: a backlog built in
 * a cold first second took the whole window to drain at 1,000 req/s, so the figures were the start's,
 * not the steady state's (bench/RESULTS.md §1). `warmUpSeconds` 0 measures the cold
 * start itself: the full rate from the first request, all of it counted.
 */
const warmUpMs = job.warmUpSeconds * 1000;
const RAMP_FROM = 0.1;
const perMs = job.rate / 1000;
/** Requests sent in the warm-up: its mean rate is halfway between RAMP_FROM and the full rate. */
const warmUpRequests = perMs * warmUpMs * ((1 + RAMP_FROM) / 2);
/** The ramp's t² coefficient: RAMP_FROM·t + a·t² requests per `perMs` in the first t ms. */
const a = warmUpMs === 0 ? 0 : (1 - RAMP_FROM) / (2 * warmUpMs);
/** Requests due in the first `elapsedMs` of the run. */
function dueBy(elapsedMs: number): number {
  if (elapsedMs >= warmUpMs) return warmUpRequests + perMs * (elapsedMs - warmUpMs);
  return perMs * (RAMP_FROM * elapsedMs + a * elapsedMs * elapsedMs);
}
/** When request `n` (from 0) is due, in ms after the start: dueBy's inverse. */
function dueAtMs(n: number): number {
  if (n >= warmUpRequests) return warmUpMs + (n - warmUpRequests) / perMs;
  // RAMP_FROM·t + a·t² = n/perMs, solved for t ≥ 0.
  return (-RAMP_FROM + Math.sqrt(RAMP_FROM * RAMP_FROM + (4 * a * n) / perMs)) / (2 * a);
}

const pacer = setInterval(() => {
  const now = performance.now();
  // Everything due by now, so a late timer sends a few at once rather than fewer in all.
  while (sent < dueBy(now - start) && now <= windowEnd) send(start + dueAtMs(sent));
}, 1);

function report(): void {
  const latencies = answers.map(([, took]) => took).sort((a, b) => a - b);
  serviceTimes.sort((a, b) => a - b);
  if (job.timeline) {
    const bySecond = new Map<number, number[]>();
    for (const [sentAt, took] of answers) {
      const second = Math.floor(sentAt / 1000);
      bySecond.set(second, [...(bySecond.get(second) ?? []), took]);
    }
    for (const [second, times] of [...bySecond].sort(([a], [b]) => a - b)) {
      const sorted = times.sort((a, b) => a - b);
      process.stderr.write(
        `s=${second} n=${sorted.length} p50=${pick(sorted, 50)} p90=${pick(sorted, 90)} max=${pick(sorted, 100)}\n`,
      );
    }
  }
  process.stdout.write(
    `${JSON.stringify({
      sent: sentInWindow,
      sentInAll: sent,
      answered: latencies.length,
      elapsedSeconds: (windowEnd - windowStart) / 1000,
      errors: Object.values(errorCodes).reduce((total, count) => total + count, 0),
      errorCodes,
      p50: pick(latencies, 50),
      p99: pick(latencies, 99),
      max: pick(latencies, 100),
      arrivedInWindow,
      // The longest gap (ns) less the timer's own 10 ms; 0 when the window closed before a sample.
      clientStallMs:
        clientLoop.count === 0 ? 0 : Math.max(0, Math.round(clientLoop.max / 1e6 - LOOP_TIMER_MS)),
      serviceP99: serviceTimes.length === 0 ? null : pick(serviceTimes, 99),
    } satisfies RunnerFigures)}\n`,
  );
}

let finishing = false;
/** Closes the window, waits for what was sent in it, reports and ends the process. */
async function finish(): Promise<void> {
  if (finishing) return;
  finishing = true;
  windowEnd = performance.now();
  clientLoop.disable();
  clearInterval(pacer);
  const giveUpAt = windowEnd + GRACE_MS;
  while (settledInWindow < sentInWindow && performance.now() < giveUpAt)
    await new Promise((resolve) => setTimeout(resolve, 20));
  report();
  process.exit(0);
}
process.once('SIGTERM', () => void finish());
setTimeout(() => void finish(), job.warmUpSeconds * 1000 + job.seconds * 1000);
