import https from 'node:https';
import type { ClientTls } from './client-tls.js';

/** prom-client samples the event loop with a timer of this many ms (its default precision). */
const SAMPLING_TIMER_MS = 10;

/** A service's event-loop delay over a span, ms, less the sampling timer's own interval. */
export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
}

function scrape(url: string, tls: ClientTls): Promise<string | undefined> {
  return new Promise((resolve) => {
    const request = https.get(
      `${url}/metrics`,
      { ca: tls.caPem, cert: tls.certPem, key: tls.keyPem, timeout: 5_000 },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(response.statusCode === 200 ? text : undefined));
      },
    );
    request.on('error', () => resolve(undefined));
    request.on('timeout', () => request.destroy());
  });
}

/** The main thread's delay from prom-client's default metrics (`nodejs_eventloop_lag_*_seconds`). */
export function parseLoopDelay(metrics: string): LoopDelay | undefined {
  const seconds = (name: string): number | undefined => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(metrics);
    return match?.[1] === undefined ? undefined : Number(match[1]);
  };
  const p99 = seconds('nodejs_eventloop_lag_p99_seconds');
  const max = seconds('nodejs_eventloop_lag_max_seconds');
  if (p99 === undefined || max === undefined) return undefined;
  const ms = (value: number) => Math.max(0, Math.round(value * 1000 - SAMPLING_TIMER_MS));
  return { p99Ms: ms(p99), maxMs: ms(max) };
}

/**
 * The service's own event-loop delay over a paced row's window: where a request waits before the edge
 * sees it, which the service's processing time (X-Processing-Time-Ms) leaves out. prom-client resets
 * its histogram at every scrape, so the first scrape, when the window opens (`fromSeconds` after the
 * row starts), empties it, and `read` answers for the window. Undefined for a server without
 * prom-client's metrics (the bare endpoint).
 */
export function watchLoopDelay(
  url: string,
  tls: ClientTls,
  fromSeconds: number,
): { read(): Promise<LoopDelay | undefined> } {
  const opened = new Promise<void>((resolve) =>
    setTimeout(() => void scrape(url, tls).then(() => resolve()), fromSeconds * 1000),
  );
  return {
    async read() {
      await opened;
      const metrics = await scrape(url, tls);
      return metrics === undefined ? undefined : parseLoopDelay(metrics);
    },
  };
}
