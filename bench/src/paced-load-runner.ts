import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { loadTest } from 'loadtest';
import { z } from '@vop/contracts';

/**
 * The child process of `paced-load.ts`: sends POSTs at an even pace with loadtest and prints one JSON
 * line of figures. A process of its own because loadtest's clients trust only the CAs the process
 * starts with (`NODE_EXTRA_CA_CERTS`); it takes no `ca` option.
 *
 * The first second is a warm-up and is not counted: loadtest opens a connection (a mutual TLS handshake)
 * for every request that finds no idle one, so until enough connections are open the answers measure
 * handshakes, not the service.
 */
const Job = z.object({
  url: z.url(),
  rate: z.number().int().positive(),
  seconds: z.number().positive(),
  warmUpSeconds: z.number().nonnegative(),
  certPath: z.string(),
  keyPath: z.string(),
  bodiesPath: z.string(),
});

const job = Job.parse(JSON.parse(await readFile(process.argv[2] ?? '', 'utf8')));
const bodies = z
  .array(z.string())
  .min(1)
  .parse(JSON.parse(await readFile(job.bodiesPath, 'utf8')));
const start = performance.now();
const windowStart = start + job.warmUpSeconds * 1000;
const windowEnd = windowStart + job.seconds * 1000;
let sent = 0;
let sentInWindow = 0;
const latencies: number[] = [];
const errorCodes: Record<string, number> = {};
const result = await loadTest({
  url: job.url,
  method: 'POST',
  contentType: 'application/json',
  requestsPerSecond: job.rate,
  maxSeconds: job.warmUpSeconds + job.seconds,
  agentKeepAlive: true,
  cert: job.certPath,
  key: job.keyPath,
  quiet: true,
  body: () => {
    if (performance.now() >= windowStart) sentInWindow++;
    return bodies[sent++ % bodies.length];
  },
  statusCallback: (error, answer) => {
    const now = performance.now();
    const startedAt = answer === undefined ? now : now - answer.requestElapsed;
    if (startedAt < windowStart || now > windowEnd) return;
    if (answer !== undefined) latencies.push(answer.requestElapsed);
    if (error !== null && error !== undefined) {
      const code = answer === undefined ? '-1' : String(answer.statusCode);
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    }
  },
});
latencies.sort((a, b) => a - b);
const percentile = (p: number): number =>
  latencies.length === 0
    ? 0
    : Math.round(
        latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? 0,
      );
process.stdout.write(
  `${JSON.stringify({
    sent: sentInWindow,
    answered: latencies.length,
    elapsedSeconds: job.seconds,
    errors: Object.values(errorCodes).reduce((total, count) => total + count, 0),
    errorCodes,
    p50: percentile(50),
    p99: percentile(99),
    max: Math.round(latencies.at(-1) ?? 0),
    connections: result.clients,
  })}\n`,
);
