import type { ServiceMetrics } from './service-metrics.js';

/** The parts of an Express or node:http response the endpoint writes. */
export interface MetricsResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

/** A GET /metrics handler in the Prometheus text format, usable with Express or node:http. */
export function metricsEndpoint(
  metrics: ServiceMetrics,
): (req: unknown, res: MetricsResponseLike) => void {
  return (_req, res) => {
    metrics.registry.metrics().then(
      (body) => {
        res.statusCode = 200;
        res.setHeader('Content-Type', metrics.registry.contentType);
        res.end(body);
      },
      () => {
        res.statusCode = 500;
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.end('metrics collection failed\n');
      },
    );
  };
}
