import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMetricsRegistry, EVENT_LOOP_SAMPLING_MS } from './service-metrics.js';

describe('createMetricsRegistry', () => {
  it('labels every metric with the service and includes process metrics', async () => {
    const metrics = createMetricsRegistry({ service: 'matching' });
    metrics.httpRequestsTotal.inc({ method: 'GET', route: '/health', status_code: '200' });
    const text = await metrics.registry.metrics();
    assert.match(
      text,
      /^http_requests_total\{method="GET",route="\/health",status_code="200",service="matching"\} 1$/m,
    );
    assert.match(text, /^process_cpu_user_seconds_total\{service="matching"\}/m);
  });

  it('names no gauge like a counter (promtool check metrics)', async () => {
    const metrics = createMetricsRegistry({ service: 'matching' });
    const gauges = (await metrics.registry.getMetricsAsJSON())
      .filter((metric) => String(metric.type) === 'gauge')
      .map((metric) => metric.name);
    assert.ok(gauges.includes('nodejs_active_handles'));
    assert.deepEqual(
      gauges.filter((name) => name.endsWith('_total')),
      [],
    );
  });

  it('given an idle process, when its event-loop lag is read, then no sample came sooner than the sampling interval', async () => {
    const metrics = createMetricsRegistry({ service: 'idle' });
    const lagMin = async () => {
      const text = await metrics.registry.metrics();
      const match = /^nodejs_eventloop_lag_min_seconds\{[^}]*\} ([0-9.e+-]+)$/m.exec(text);
      const seconds = Number(match?.[1]);
      // Before the first sample prom-client reports an empty histogram's minimum (a huge number).
      return Number.isFinite(seconds) && seconds > 0 && seconds < 3600 ? seconds : undefined;
    };

    // Each read empties the histogram: wait for samples between reads.
    let seconds: number | undefined;
    for (let tries = 0; seconds === undefined && tries < 20; tries++) {
      await sleep(3 * EVENT_LOOP_SAMPLING_MS);
      seconds = await lagMin();
    }
    assert.ok(seconds !== undefined, 'no event-loop lag was sampled');

    // A sample is taken by a timer of the sampling interval: the shortest gap between two is that long.
    assert.ok(seconds * 1000 >= EVENT_LOOP_SAMPLING_MS * 0.99, `min lag ${seconds} s`);
  });

  it('can leave out process metrics', async () => {
    const metrics = createMetricsRegistry({ service: 'matching', collectDefaultMetrics: false });
    assert.doesNotMatch(await metrics.registry.metrics(), /process_cpu_user_seconds_total/);
  });

  it('offers the domain metrics under their agreed names and labels', async () => {
    const metrics = createMetricsRegistry({ service: 'matching', collectDefaultMetrics: false });
    metrics.verificationOutcomes.inc({ family: 'vop', outcome: 'MTCH' });
    metrics.matchingDuration.observe(0.00004);
    metrics.outboxLag.set({ relay: 'matching-outbox' }, 7);
    metrics.consumerLag.set(
      { topic: 'vop.verification-requested.v1', partition: '0', group: 'matching' },
      3,
    );
    const text = await metrics.registry.metrics();
    assert.match(
      text,
      /^verification_outcomes_total\{family="vop",outcome="MTCH",service="matching"\} 1$/m,
    );
    assert.match(text, /^matching_duration_seconds_bucket\{le="0\.00005",service="matching"\} 1$/m);
    assert.match(text, /^outbox_lag_events\{relay="matching-outbox",service="matching"\} 7$/m);
    assert.match(
      text,
      /^consumer_lag\{topic="vop\.verification-requested\.v1",partition="0",group="matching",service="matching"\} 3$/m,
    );
  });

  it('creates domain metrics only when first used', async () => {
    const metrics = createMetricsRegistry({ service: 'gateway', collectDefaultMetrics: false });
    assert.doesNotMatch(
      await metrics.registry.metrics(),
      /verification_outcomes_total|consumer_lag/,
    );
  });

  it('returns the same metric when asked twice and refuses a name reused for another type', () => {
    const metrics = createMetricsRegistry({ service: 'batch', collectDefaultMetrics: false });
    const definition = {
      name: 'batch_entries_total',
      help: 'Batch entries',
      labelNames: ['status'] as const,
    };
    const first = metrics.counter(definition);
    first.inc({ status: 'COMPLETED' });
    assert.equal(metrics.counter(definition), first);
    assert.equal(metrics.verificationOutcomes, metrics.verificationOutcomes);
    assert.throws(() => metrics.gauge({ name: 'batch_entries_total', help: 'clash' }), TypeError);
  });

  it('keeps registries of different services apart', async () => {
    const gateway = createMetricsRegistry({ service: 'gateway', collectDefaultMetrics: false });
    const matching = createMetricsRegistry({ service: 'matching', collectDefaultMetrics: false });
    gateway.httpRequestsTotal.inc({ method: 'GET', route: '/livez', status_code: '200' });
    assert.doesNotMatch(await matching.registry.metrics(), /route="\/livez"/);
  });
});
