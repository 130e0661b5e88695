import assert from 'node:assert/strict';
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { httpMetricsMiddleware, routeLabel } from './http-metrics-middleware.js';
import { metricsEndpoint } from './metrics-endpoint.js';
import { createMetricsRegistry, type ServiceMetrics } from './service-metrics.js';

describe('httpMetricsMiddleware with Express', () => {
  let metrics: ServiceMetrics;
  let server: Server;
  let baseUrl: string;
  let slowRequestArrived: () => void = () => undefined;

  before(async () => {
    metrics = createMetricsRegistry({ service: 'gateway', collectDefaultMetrics: false });
    const app = express();
    app.use(httpMetricsMiddleware(metrics));
    app.get('/metrics', metricsEndpoint(metrics));
    const v1 = express.Router();
    v1.get('/verify/:requestId', (req, res) => {
      res.json({ request_id: req.params.requestId });
    });
    v1.post('/verify', (_req, res) => {
      // Answer after the handler returns, as real handlers awaiting I/O do.
      setImmediate(() => res.status(201).json({ status: 'PENDING' }));
    });
    v1.get('/slow', () => {
      // Never answers: the client gives up first.
      slowRequestArrived();
    });
    app.use('/v1', v1);
    app.get('/accounts/:accountId', (_req, res) => {
      res.status(404).json({ error: 'not found' });
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function hasLabels(actual: Record<string, unknown>, expected: Record<string, string>): boolean {
    return Object.entries(expected).every(([name, value]) => String(actual[name]) === value);
  }

  /**
   * The client can read a response before the server's 'finish' event has run, so give the server a few turns of
   * the event loop to record it before comparing.
   */
  async function settled<T>(read: () => Promise<T>, expected: T): Promise<T> {
    let actual = await read();
    for (let turn = 0; turn < 100 && actual !== expected; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      actual = await read();
    }
    return actual;
  }

  async function requestCount(labels: Record<string, string>): Promise<number> {
    const metric = await metrics.httpRequestsTotal.get();
    return metric.values.find((value) => hasLabels(value.labels, labels))?.value ?? 0;
  }

  async function durationObservations(labels: Record<string, string>): Promise<number> {
    const metric = await metrics.httpRequestDuration.get();
    const count = metric.values.find(
      (value) =>
        value.metricName === 'http_request_duration_seconds_count' &&
        hasLabels(value.labels, labels),
    );
    return count?.value ?? 0;
  }

  it('labels requests by the route template joined with the router mount path, never the raw id', async () => {
    for (const id of ['vrf_111', 'vrf_222', 'vrf_333']) {
      const response = await fetch(`${baseUrl}/v1/verify/${id}`);
      assert.equal(response.status, 200);
    }
    const labels = { method: 'GET', route: '/v1/verify/:requestId', status_code: '200' };
    assert.equal(await settled(() => requestCount(labels), 3), 3);
    assert.equal(await settled(() => durationObservations(labels), 3), 3);
    const exposition = await (await fetch(`${baseUrl}/metrics`)).text();
    assert.doesNotMatch(exposition, /vrf_111/);
  });

  it('records the status of responses finished after the handler returned', async () => {
    const response = await fetch(`${baseUrl}/v1/verify`, { method: 'POST' });
    assert.equal(response.status, 201);
    const labels = { method: 'POST', route: '/v1/verify', status_code: '201' };
    assert.equal(await settled(() => requestCount(labels), 1), 1);
  });

  it('keeps the template for error statuses answered by a matched route', async () => {
    await fetch(`${baseUrl}/accounts/acc_42`);
    const labels = { method: 'GET', route: '/accounts/:accountId', status_code: '404' };
    assert.equal(await settled(() => requestCount(labels), 1), 1);
  });

  it('labels requests no route matched as "unmatched"', async () => {
    const response = await fetch(`${baseUrl}/no/such/path/12345`);
    assert.equal(response.status, 404);
    const labels = { method: 'GET', route: 'unmatched', status_code: '404' };
    assert.equal(await settled(() => requestCount(labels), 1), 1);
    const metric = await metrics.httpRequestsTotal.get();
    assert.ok(metric.values.every((value) => !String(value.labels.route).includes('12345')));
  });

  it('labels requests the client abandoned before the response with status 499', async () => {
    const arrived = new Promise<void>((resolve) => (slowRequestArrived = resolve));
    const request = http.get(`${baseUrl}/v1/slow`);
    request.on('error', () => undefined);
    await arrived;
    request.destroy();
    const labels = { method: 'GET', route: '/v1/slow', status_code: '499' };
    assert.equal(await settled(() => requestCount(labels), 1), 1);
  });

  it('serves the registry in the Prometheus text format', async () => {
    const response = await fetch(`${baseUrl}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  });
});

describe('routeLabel', () => {
  it('joins a router mounted at a fixed path with the route template', () => {
    assert.equal(
      routeLabel({ baseUrl: '/vop/api/v1', route: { path: '/verify/:id' } }),
      '/vop/api/v1/verify/:id',
    );
    assert.equal(routeLabel({ baseUrl: '/v1', route: { path: '/' } }), '/v1');
    assert.equal(routeLabel({ baseUrl: '', route: { path: '/' } }), '/');
    assert.equal(
      routeLabel({ route: { path: ['/verify', '/api/verify'] } }),
      '/verify|/api/verify',
    );
    assert.equal(routeLabel({ baseUrl: '/v1' }), 'unmatched');
  });

  it('asks the service for a label only when no route handled the request', () => {
    const forwarded = (req: { originalUrl?: string }) =>
      req.originalUrl?.startsWith('/admin/matching/') ? 'forwarded:matching-management' : undefined;
    assert.equal(
      routeLabel({ originalUrl: '/admin/matching/explain' }, forwarded),
      'forwarded:matching-management',
    );
    assert.equal(routeLabel({ originalUrl: '/nowhere' }, forwarded), 'unmatched');
    assert.equal(
      routeLabel(
        { originalUrl: '/admin/matching/x', route: { path: '/admin/matching/x' } },
        forwarded,
      ),
      '/admin/matching/x',
    );
  });
});

describe('httpMetricsMiddleware with an error answered outside the router', () => {
  it('labels a 404 for an unknown id with the whole template, mount path included', async () => {
    const metrics = createMetricsRegistry({ service: 'gateway', collectDefaultMetrics: false });
    const app = express();
    app.use(httpMetricsMiddleware(metrics));
    const router = express.Router();
    router.get('/verify/:requestId', (_req, _res, next) => next(new Error('no such request')));
    app.use('/api/v1', router);
    app.use(((_error, _req, res, _next) => {
      res.status(404).json({ error: 'not found' });
    }) as express.ErrorRequestHandler);
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/verify/vrf_missing`);
      assert.equal(response.status, 404);
      const labelled = async (): Promise<string[]> =>
        (await metrics.httpRequestsTotal.get()).values.map((value) => String(value.labels.route));
      let routes = await labelled();
      for (let turn = 0; turn < 100 && routes.length === 0; turn += 1) {
        await new Promise((resolve) => setImmediate(resolve));
        routes = await labelled();
      }
      assert.deepEqual(routes, ['/api/v1/verify/:requestId']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
