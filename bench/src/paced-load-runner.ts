import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { loadTest } from 'loadtest';
import { z } from '@vop/contracts';
import { RunnerJob, type RunnerFigures } from './paced-load-contract.js';

/**
 * The child process of `paced-load.ts`: sends POSTs at an even pace with loadtest and prints one JSON
 * line of figures, when the time is up or at SIGTERM (the window then ends there). A process of its own
 * because loadtest's clients trust only the CAs the process starts with (`NODE_EXTRA_CA_CERTS`); it
 * takes no `ca` option.
 *
 * The warm-up is not counted: loadtest opens a connection (a mutual TLS handshake) for every request
 * that finds no idle one, so until enough connections are open the answers measure handshakes. What
 * was sent in the window is waited for (up to `GRACE_MS`) after it closes, so a slow answer counts as
 * slow, not as missing; only what is still unanswered then counts as not answered.
 */
const GRACE_MS = 30_000;

const job = RunnerJob.parse(JSON.parse(await readFile(process.argv[2] ?? '', 'utf8')));
const bodies = z
  .array(z.string())
  .min(1)
  .parse(JSON.parse(await readFile(job.bodiesPath, 'utf8')));
const windowStart = performance.now() + job.warmUpSeconds * 1000;
let windowEnd = Number.POSITIVE_INFINITY;
let sent = 0;
let sentInWindow = 0;
/** [ms after the window opened that the request was sent, ms it took], for answers in the window. */
const answers: [number, number][] = [];
const errorCodes: Record<string, number> = {};
let connectionErrors = 0;
/** Answers (to whatever was sent) that arrived while the window was open: the rate served. */
let arrivedInWindow = 0;

const pick = (sorted: number[], p: number): number =>
  sorted.length === 0
    ? 0
    : Math.round(
        sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0,
      );

function report(): void {
  const latencies = answers.map(([, took]) => took).sort((a, b) => a - b);
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
      answered: latencies.length,
      elapsedSeconds: (windowEnd - windowStart) / 1000,
      errors: Object.values(errorCodes).reduce((total, count) => total + count, 0),
      errorCodes,
      p50: pick(latencies, 50),
      p99: pick(latencies, 99),
      max: pick(latencies, 100),
      arrivedInWindow,
    } satisfies RunnerFigures)}\n`,
  );
}

let finishing = false;
/** Closes the window, waits for what was sent in it, reports and ends the process. */
async function finish(): Promise<void> {
  if (finishing) return;
  finishing = true;
  windowEnd = performance.now();
  const giveUpAt = windowEnd + GRACE_MS;
  while (answers.length + connectionErrors < sentInWindow && performance.now() < giveUpAt)
    await new Promise((resolve) => setTimeout(resolve, 20));
  report();
  process.exit(0);
}
process.once('SIGTERM', () => void finish());
setTimeout(() => void finish(), job.warmUpSeconds * 1000 + job.seconds * 1000);

await loadTest({
  url: job.url,
  method: 'POST',
  contentType: 'application/json',
  requestsPerSecond: job.rate,
  // An upper bound only: finish() ends the process first.
  maxSeconds: job.warmUpSeconds + job.seconds + GRACE_MS / 1000 + 5,
  agentKeepAlive: true,
  cert: job.certPath,
  key: job.keyPath,
  quiet: true,
  body: () => {
    const now = performance.now();
    if (now >= windowStart && now <= windowEnd) sentInWindow++;
    return bodies[sent++ % bodies.length];
  },
  statusCallback: (error, answer) => {
    const now = performance.now();
    if (now >= windowStart && now <= windowEnd) arrivedInWindow += 1;
    const sentAt = answer === undefined ? now : now - answer.requestElapsed;
    if (sentAt < windowStart || sentAt > windowEnd) return;
    if (answer !== undefined) answers.push([sentAt - windowStart, answer.requestElapsed]);
    else connectionErrors += 1;
    if (error !== null && error !== undefined) {
      const code = answer === undefined ? '-1' : String(answer.statusCode);
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    }
  },
});
// Reached only if the upper bound came first (finish() ends the process otherwise).
await finish();
