import { EVENT_LOOP_SAMPLING_MS as SAMPLING_TIMER_MS } from '@vop/observability';
import { httpsClient } from '@vop/testing';
import type { ClientTls } from './client-tls.js';

/**
 * The main thread's longest delay, ms, from prom-client's default metrics
 * (`nodejs_eventloop_lag_max_seconds`), less the sampling timer's own interval.
 */
function parseLoopDelayMaxMs(metrics: string): number | undefined {
  const match = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(metrics);
  if (match?.[1] === undefined) return undefined;
  return Math.max(0, Math.round(Number(match[1]) * 1000 - SAMPLING_TIMER_MS));
}

/**
 * The service's own event-loop delay over a paced row's window: where a request waits before the edge
 * sees it, which the service's processing time (X-Processing-Time-Ms) leaves out. prom-client resets
 * its histogram at every scrape, so the first scrape, when the window opens (`fromSeconds` after the
 * row starts), empties it, and `readMaxMs` answers for the window. Undefined for a server without
 * prom-client's metrics (the bare endpoint).
 */
export function watchLoopDelay(
  url: string,
  tls: ClientTls,
  fromSeconds: number,
): { readMaxMs(): Promise<number | undefined> } {
  const client = httpsClient({ baseUrl: url, ...tls });
  const scrape = async (): Promise<string | undefined> => {
    const response = await client.get('/metrics').catch(() => undefined);
    return response?.status === 200 ? response.text : undefined;
  };
  const opened = new Promise<void>((resolve) =>
    setTimeout(() => void scrape().then(() => resolve()), fromSeconds * 1000),
  );
  return {
    async readMaxMs() {
      await opened;
      const metrics = await scrape();
      client.close();
      return metrics === undefined ? undefined : parseLoopDelayMaxMs(metrics);
    },
  };
}
