import type { Server, Socket } from 'node:net';
import type { ServiceMetrics } from '@vop/observability';

/** The window the service's own figures are taken over. */
export const FIGURES_WINDOW_MS = 60_000;

interface Sample {
  at: number;
  requests: number;
  successes: number;
  seconds: number;
}

export interface ServiceFigures {
  source: 'service';
  requestsPerSecond: number;
  averageResponseTime: string;
  successRate: string;
  activeConnections: number;
  totalRequests: number;
  /** Where the window of these figures began. */
  since: string;
}

async function sampleOf(metrics: ServiceMetrics | undefined, at: number): Promise<Sample> {
  if (metrics === undefined) return { at, requests: 0, successes: 0, seconds: 0 };
  const [counts, durations] = await Promise.all([
    metrics.httpRequestsTotal.get(),
    metrics.httpRequestDuration.get(),
  ]);
  let requests = 0;
  let successes = 0;
  for (const { value, labels } of counts.values) {
    requests += value;
    if (String(labels.status_code).startsWith('2')) successes += value;
  }
  const seconds = durations.values
    .filter((each) => each.metricName === 'http_request_duration_seconds_sum')
    .reduce((sum, each) => sum + each.value, 0);
  return { at, requests, successes, seconds };
}

/**
 * GET /test/performance/metrics before any load run: the service's own traffic as its HTTP metrics
 * counted it, over the last minute (the first call: since the toolkit started). A success is a 2xx
 * answer, as a load run counts it.
 */
export function serviceFigures(options: {
  metrics: ServiceMetrics | undefined;
  clock: () => Date;
}): (activeConnections: number) => Promise<ServiceFigures> {
  // The metrics count from the process's start, which is the toolkit's to within its setup.
  const start: Sample = { at: options.clock().getTime(), requests: 0, successes: 0, seconds: 0 };
  let samples: Sample[] = [];
  return async (activeConnections) => {
    const now = await sampleOf(options.metrics, options.clock().getTime());
    const recent = samples.filter((each) => each.at >= now.at - FIGURES_WINDOW_MS);
    const base = recent[0] ?? samples[samples.length - 1] ?? start;
    samples = [...recent, now];
    const requests = now.requests - base.requests;
    const elapsedSeconds = Math.max((now.at - base.at) / 1000, 0.001);
    const average = requests === 0 ? 0 : ((now.seconds - base.seconds) / requests) * 1000;
    const share = requests === 0 ? 0 : ((now.successes - base.successes) / requests) * 100;
    return {
      source: 'service',
      requestsPerSecond: Math.round((requests / elapsedSeconds) * 10) / 10,
      averageResponseTime: `${Math.round(average)} ms`,
      successRate: `${share.toFixed(1)}%`,
      activeConnections,
      totalRequests: now.requests,
      since: new Date(base.at).toISOString(),
    };
  };
}

/** The connections open on the listener that took this request (TLS and plain sockets alike). */
export function openConnections(socket: Socket): Promise<number> {
  const server = (socket as Socket & { server?: Server }).server;
  if (server === undefined) return Promise.resolve(0);
  return new Promise((resolve) =>
    server.getConnections((error, count) => resolve(error ? 0 : count)),
  );
}
