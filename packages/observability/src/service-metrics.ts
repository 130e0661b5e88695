import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type HttpLabel = 'method' | 'route' | 'status_code';

export interface MetricDefinition<Label extends string> {
  name: string;
  help: string;
  labelNames?: readonly Label[];
}

export interface GaugeDefinition<Label extends string> extends MetricDefinition<Label> {
  /** Sets the gauge's values when scraped (e.g. lags read from Kafka or the database). */
  collect?: (gauge: Gauge<Label>) => Promise<void> | void;
}

export interface HistogramDefinition<Label extends string> extends MetricDefinition<Label> {
  /** Upper bounds in the metric's unit (seconds for durations). */
  buckets?: number[];
}

export interface ServiceMetrics {
  readonly service: string;
  readonly registry: Registry;
  /** http_requests_total{method,route,status_code} */
  readonly httpRequestsTotal: Counter<HttpLabel>;
  /** http_request_duration_seconds{method,route,status_code}, 1 ms to 5 s */
  readonly httpRequestDuration: Histogram<HttpLabel>;
  /** verification_outcomes_total{family,outcome}; created on first use. */
  readonly verificationOutcomes: Counter<'family' | 'outcome'>;
  /** matching_duration_seconds, one observation per decided verification; created on first use. */
  readonly matchingDuration: Histogram<never>;
  /** outbox_lag_events{relay}: events stored but not yet published; created on first use. */
  readonly outboxLag: Gauge<'relay'>;
  /** consumer_lag{topic,partition,group}: messages behind the partition's end; created on first use. */
  readonly consumerLag: Gauge<'topic' | 'partition' | 'group'>;
  /** Returns the counter with this name, creating it on first use. */
  counter<Label extends string = never>(definition: MetricDefinition<Label>): Counter<Label>;
  /** Returns the histogram with this name, creating it on first use. */
  histogram<Label extends string = never>(definition: HistogramDefinition<Label>): Histogram<Label>;
  /** Returns the gauge with this name, creating it on first use. */
  gauge<Label extends string = never>(definition: GaugeDefinition<Label>): Gauge<Label>;
}

export interface MetricsRegistryOptions {
  service: string;
  /**
   * Process metrics (CPU, memory, event loop lag, GC). Defaults to true; turn it off for all but one registry when
   * several share a process, or merging them for one /metrics endpoint fails on duplicate names.
   */
  collectDefaultMetrics?: boolean;
}

export const HTTP_DURATION_BUCKETS_SECONDS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
/** Matching one name pair takes microseconds; a verification compares against a handful of holder names. */
export const MATCHING_DURATION_BUCKETS_SECONDS = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
];

/**
 * How often prom-client's event-loop lag histogram samples (its default is 10 ms): each sample wakes
 * the process, and 100 a second were a third of an idle process's CPU. A delay shorter than this is
 * seen only when it holds up a sample; `nodejs_eventloop_lag_*` include this interval.
 */
export const EVENT_LOOP_SAMPLING_MS = 100;

const GAUGES_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** A prom-client registry labelled with the service name, holding process metrics and the RED metrics. */
export function createMetricsRegistry(options: MetricsRegistryOptions): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  if (options.collectDefaultMetrics ?? true) {
    collectDefaultMetrics({
      register: registry,
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLING_MS,
    });
    // Gauges may not end in _total (promtool check metrics); their per-type gauges, summed, say the same.
    for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  }

  function getOrCreate<Metric>(
    name: string,
    kind: abstract new (...args: never[]) => Metric,
    create: () => Metric,
  ): Metric {
    const existing = registry.getSingleMetric(name);
    if (existing === undefined) return create();
    if (!(existing instanceof kind)) {
      throw new TypeError(`metric ${name} is already registered as a different type`);
    }
    return existing;
  }

  const counter = <Label extends string = never>(
    definition: MetricDefinition<Label>,
  ): Counter<Label> =>
    getOrCreate(
      definition.name,
      Counter<Label>,
      () => new Counter<Label>({ ...labelled(definition), registers: [registry] }),
    );
  const histogram = <Label extends string = never>(
    definition: HistogramDefinition<Label>,
  ): Histogram<Label> =>
    getOrCreate(
      definition.name,
      Histogram<Label>,
      () =>
        new Histogram<Label>({
          ...labelled(definition),
          ...(definition.buckets === undefined ? {} : { buckets: definition.buckets }),
          registers: [registry],
        }),
    );
  const gauge = <Label extends string = never>(definition: GaugeDefinition<Label>): Gauge<Label> =>
    getOrCreate(definition.name, Gauge<Label>, () => {
      const { collect } = definition;
      return new Gauge<Label>({
        ...labelled(definition),
        registers: [registry],
        ...(collect && {
          async collect(this: Gauge<Label>) {
            await collect(this);
          },
        }),
      });
    });

  const httpLabels: readonly HttpLabel[] = ['method', 'route', 'status_code'];
  const httpRequestsTotal = counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: httpLabels,
  });
  const httpRequestDuration = histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to finishing its response',
    labelNames: httpLabels,
    buckets: HTTP_DURATION_BUCKETS_SECONDS,
  });

  return {
    service: options.service,
    registry,
    httpRequestsTotal,
    httpRequestDuration,
    get verificationOutcomes() {
      return counter({
        name: 'verification_outcomes_total',
        help: 'Completed verifications by request family and outcome',
        labelNames: ['family', 'outcome'],
      });
    },
    get matchingDuration() {
      return histogram({
        name: 'matching_duration_seconds',
        help: 'Time to decide the outcome of one verification',
        buckets: MATCHING_DURATION_BUCKETS_SECONDS,
      });
    },
    get outboxLag() {
      return gauge({
        name: 'outbox_lag_events',
        help: 'Events in the event store not yet published to the bus',
        labelNames: ['relay'],
      });
    },
    get consumerLag() {
      return gauge({
        name: 'consumer_lag',
        help: 'Messages between a consumer group position and the end of the partition',
        labelNames: ['topic', 'partition', 'group'],
      });
    },
    counter,
    histogram,
    gauge,
  };
}

function labelled<Label extends string>(
  definition: MetricDefinition<Label>,
): {
  name: string;
  help: string;
  labelNames: Label[];
} {
  return {
    name: definition.name,
    help: definition.help,
    labelNames: [...(definition.labelNames ?? [])],
  };
}
