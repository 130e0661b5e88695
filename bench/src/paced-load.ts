import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ClientTls } from './client-tls.js';
import { RunnerFigures, WINDOW_OPEN, type RunnerJob } from './paced-load-contract.js';

/**
 * Requests at an even pace (an open loop: one every 1/rate s, whether or not earlier ones were answered).
 * autocannon's `overallRate` sends each connection's quota for the second back-to-back when the second
 * starts, so "1,000 req/s offered" was a burst of 1,000 each second and its p99 the time to drain the burst.
 * The client keeps a bounded pool of keep-alive connections (a bank's client does not open a new mutual
 * TLS connection whenever the service is slow): requests beyond it queue in the client, and that counts.
 */
export interface PacedLoad {
  /** Sent in the measured window (after a second's warm-up). */
  sent: number;
  /** Of those, answered (at the latest 30 s after the window closed); p50/p99/max are theirs. */
  answered: number;
  /** Sent in all, the warm-up's included. */
  sentInAll: number;
  /** Answers that arrived while the window was open, per second: the rate served. */
  answeredPerSecond: number;
  errors: number;
  /** Status codes (or -1 for a connection error) of the answers that were not 2xx/3xx. */
  errorCodes: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  /** The client's longest event-loop delay in the window, ms (`RunnerFigures.clientStallMs`). */
  clientStallMs: number;
  /** p99 of the service's own processing time, ms (`RunnerFigures.serviceP99`). */
  serviceP99: number | null;
}

/** The pool size of a paced client unless a caller says otherwise. */
export const PACED_CONNECTIONS = 64;

const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), 'paced-load-runner.js');

export async function pacedLoad(options: {
  url: string;
  rate: number;
  seconds: number;
  tls: ClientTls;
  bodies: string[];
  /** Seconds sent but not counted first (default 1); the window opens after them. */
  warmUpSeconds?: number;
  /** Keep-alive connections at most (default `PACED_CONNECTIONS`). */
  connections?: number;
  /** Ends the window early when it settles (the run lasts `seconds` at most). */
  until?: Promise<unknown>;
  /** Per-second p50/p90/max of the window on this process's stderr. */
  timeline?: boolean;
  /** Called once the warm-up is over and the window opens: to start what the window is to measure. */
  onWindowOpen?: () => void;
}): Promise<PacedLoad> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vop-paced-'));
  try {
    const file = (name: string) => path.join(dir, name);
    await Promise.all([
      writeFile(file('ca.pem'), options.tls.caPem),
      writeFile(file('cert.pem'), options.tls.certPem),
      writeFile(file('key.pem'), options.tls.keyPem, { mode: 0o600 }),
      writeFile(file('bodies.json'), JSON.stringify(options.bodies)),
    ]);
    const job = {
      url: options.url,
      rate: options.rate,
      seconds: options.seconds,
      warmUpSeconds: options.warmUpSeconds ?? 1,
      connections: options.connections ?? PACED_CONNECTIONS,
      caPath: file('ca.pem'),
      certPath: file('cert.pem'),
      keyPath: file('key.pem'),
      bodiesPath: file('bodies.json'),
      timeline: options.timeline ?? false,
    } satisfies RunnerJob;
    await writeFile(file('job.json'), JSON.stringify(job));
    const run = promisify(execFile)(process.execPath, [runner, file('job.json')], {
      maxBuffer: 1 << 24,
    });
    const spawnedAt = performance.now();
    const onWindowOpen = options.onWindowOpen;
    if (onWindowOpen) {
      let seen = '';
      const watch = (chunk: Buffer | string): void => {
        seen += chunk.toString();
        if (!seen.includes(WINDOW_OPEN)) return;
        run.child.stderr?.off('data', watch);
        onWindowOpen();
      };
      run.child.stderr?.on('data', watch);
    }
    // A stop before the window opened found the runner still loading, before its SIGTERM handler, and
    // killed it without figures (a short import beside checks): the window then still gets a second.
    const stop = () => {
      const untilWindowHasRun = spawnedAt + (job.warmUpSeconds + 1) * 1000 - performance.now();
      setTimeout(() => run.child.kill('SIGTERM'), Math.max(0, untilWindowHasRun));
    };
    void options.until?.then(stop, stop);
    const { stdout, stderr } = await run;
    if (options.timeline)
      process.stderr.write(
        stderr
          .split('\n')
          .filter((line) => line !== WINDOW_OPEN)
          .join('\n'),
      );
    const figures = RunnerFigures.parse(JSON.parse(stdout.trim().split('\n').at(-1) ?? ''));
    return {
      sent: figures.sent,
      sentInAll: figures.sentInAll,
      answered: figures.answered,
      answeredPerSecond: Math.round(figures.arrivedInWindow / figures.elapsedSeconds),
      errors: figures.errors,
      errorCodes: figures.errorCodes,
      p50: figures.p50,
      p99: figures.p99,
      max: figures.max,
      clientStallMs: figures.clientStallMs,
      serviceP99: figures.serviceP99,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
