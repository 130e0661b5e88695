export { createLogger, REDACTED, redactedLogPaths } from './logger.js';
export type { Logger, LoggerOptions } from './logger.js';
export { maskIban, maskName } from './masking.js';
export {
  createMetricsRegistry,
  EVENT_LOOP_SAMPLING_MS,
  HTTP_DURATION_BUCKETS_SECONDS,
  MATCHING_DURATION_BUCKETS_SECONDS,
} from './service-metrics.js';
export type {
  GaugeDefinition,
  HistogramDefinition,
  HttpLabel,
  MetricDefinition,
  MetricsRegistryOptions,
  ServiceMetrics,
} from './service-metrics.js';
export {
  CLIENT_CLOSED_REQUEST,
  httpMetricsMiddleware,
  labelMatchedRoute,
  matchedRouteLabel,
  routeLabel,
  UNMATCHED_ROUTE,
} from './http-metrics-middleware.js';
export type { HttpRequestLike, HttpResponseLike, NextFunction } from './http-metrics-middleware.js';
export { metricsEndpoint } from './metrics-endpoint.js';
export type { MetricsResponseLike } from './metrics-endpoint.js';
export {
  activeTraceIds,
  activeTraceparent,
  httpTracingMiddleware,
  requestTraceContext,
  requestTraceIds,
  requestTraceparent,
  startTracing,
} from './tracing.js';
export type { TracedRequest, Tracing } from './tracing.js';
