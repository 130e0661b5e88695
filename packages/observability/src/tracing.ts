import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  NoopSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  CLIENT_CLOSED_REQUEST,
  matchedRouteLabel,
  trackMatchedRoute,
  type HttpRequestLike,
  type HttpResponseLike,
  type NextFunction,
} from './http-metrics-middleware.js';

export interface Tracing {
  /** True when spans are exported over OTLP (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is set). */
  readonly exporting: boolean;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry for one process. With an OTLP endpoint configured, spans go out over OTLP/HTTP (the
 * OTEL_* variables apply: sampler, headers, timeouts). Without one, spans are never recorded, yet
 * each still gets ids, so traceparent travels through HTTP and Kafka and log lines carry trace ids at
 * the cost of two random ids per span.
 */
export function startTracing(options: { service: string; env?: NodeJS.ProcessEnv }): Tracing {
  const env = options.env ?? process.env;
  const exporting =
    Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT']) ||
    Boolean(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
  const sdk = new NodeSDK({
    serviceName: options.service,
    autoDetectResources: false,
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
    ...(exporting
      ? { spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] }
      : { spanProcessors: [new NoopSpanProcessor()], sampler: new AlwaysOffSampler() }),
  });
  sdk.start();
  return { exporting, shutdown: () => sdk.shutdown() };
}

const tracer = () => trace.getTracer('@vop/observability');

/** W3C trace context of the active span, for event metadata and message headers. */
export function activeTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'];
}

/** The trace and span ids of the active span, for log lines; empty outside any span. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export interface TracedRequest extends HttpRequestLike {
  headers: Record<string, string | string[] | undefined>;
}

const REQUEST_CONTEXT = Symbol('requestTraceContext');
type WithContext = { [REQUEST_CONTEXT]?: Context };

/** The context of the request's SERVER span (see httpTracingMiddleware), if it has one. */
export function requestTraceContext(req: object): Context | undefined {
  return (req as WithContext)[REQUEST_CONTEXT];
}

/** The request's SERVER span as a W3C traceparent, for the events the request causes. */
export function requestTraceparent(req: object): string | undefined {
  const active = requestTraceContext(req);
  if (active === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier['traceparent'];
}

/** The request's trace and span ids, for log lines written outside its context (on 'finish'). */
export function requestTraceIds(req: object): { trace_id?: string; span_id?: string } {
  const active = requestTraceContext(req);
  const span = active && trace.getSpan(active);
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * A SERVER span per request, continuing the caller's traceparent. Named and labelled by method and
 * route template only: a path can hold ids and IBANs, so neither the URL nor the query is recorded.
 * The span's context is the active one for the rest of the request (AsyncLocalStorage follows it into
 * the body parser's callbacks and the route's awaits) and is also kept on the request
 * (requestTraceContext) for what runs outside it, such as 'finish' listeners. The request and response
 * emitters are not bound to it, as OpenTelemetry's HTTP instrumentation does: in
 * bench/src/tracing.bench.ts binding them cost about a third of an edge's throughput.
 */
export function httpTracingMiddleware(): (
  req: TracedRequest,
  res: HttpResponseLike,
  next: NextFunction,
) => void {
  return (req, res, next) => {
    trackMatchedRoute(req);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = (req.method ?? 'UNKNOWN').toUpperCase();
    const span = tracer().startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
      parent,
    );
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      if (span.isRecording()) {
        const route = matchedRouteLabel(req);
        const status =
          res.writableFinished === false ? Number(CLIENT_CLOSED_REQUEST) : res.statusCode;
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    const active: Context = trace.setSpan(parent, span);
    (req as WithContext)[REQUEST_CONTEXT] = active;
    context.with(active, next);
  };
}
