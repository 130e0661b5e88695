import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RequestHandler } from 'express';
import { createLogger, matchedRouteLabel } from '@vop/observability';
import { createHttpApp } from './app.js';
import { errors } from './errors.js';
import { startHttpServer, type RunningServer } from './server.js';
import { createRouter } from './router.js';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * Given an app whose POST /vop/verify is also a direct route, when the same requests arrive at the
 * root path (served past the router) and under /v1 (served by Express), then both answer alike: the
 * edge's middlewares in order, the same body, the same errors in the scheme format, the same metric
 * label; only the router's own middleware and the forwarders are passed by the direct route.
 */
describe('direct routes: the edge and the handler without Express router', () => {
  const labels: string[] = [];
  let server: RunningServer;

  before(async () => {
    const router = createRouter();
    // A router-level middleware: Express runs it, the direct route does not walk the router.
    router.use((_req, res, next) => {
      res.setHeader('X-Through-Router', 'yes');
      next();
    });
    const verify: RequestHandler = async (req, res) => {
      const body = req.body as { name?: unknown };
      await Promise.resolve();
      if (body.name === 'throw') throw errors.unavailable('Try later', 3);
      res.json({
        name: body.name,
        route: (req.route as { path?: string }).path,
        order: res.locals.order,
      });
    };
    router.post('/vop/verify', verify);
    const step =
      (name: string): RequestHandler =>
      (_req, res, next) => {
        res.locals.order = [...((res.locals.order as string[] | undefined) ?? []), name];
        next();
      };
    const labelOnFinish: RequestHandler = (req, res, next) => {
      res.once('finish', () => labels.push(matchedRouteLabel(req)));
      next();
    };
    const refuseMarked: RequestHandler = (req, _res, next) =>
      next(req.get('x-refuse') === 'yes' ? errors.accessDenied() : undefined);
    const app = createHttpApp({
      logger: createLogger({ service: 'spec', level: 'silent' }),
      respondingPsp: 'VOPBDEFFXXX',
      beforeRoutes: [labelOnFinish, step('first'), refuseMarked, step('second')],
      // A forwarder takes other services' families; it passes this one on, and is not asked directly.
      forwarders: [
        (_req, res, next) => {
          res.setHeader('X-Asked-Forwarder', 'yes');
          next();
        },
      ],
      routers: [router],
      directRoutes: [{ method: 'POST', path: '/vop/verify', handler: verify }],
    });
    server = await startHttpServer({ handler: app, host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await server?.close();
  });

  const post = async (
    path: string,
    body: string,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    };
  };

  it('runs the edge in order and the handler with its route, and skips only the router', async () => {
    labels.length = 0;
    const direct = await post('/vop/verify', JSON.stringify({ name: 'Ada' }));
    const throughExpress = await post('/v1/vop/verify', JSON.stringify({ name: 'Ada' }));
    for (const answer of [direct, throughExpress]) {
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, {
        name: 'Ada',
        route: '/vop/verify',
        order: ['first', 'second'],
      });
      // The edge's own headers: security headers and the scheme timing headers.
      assert.equal(answer.headers.get('x-frame-options'), 'DENY');
      assert.match(answer.headers.get('x-processing-time-ms') ?? '', /^\d+$/);
    }
    assert.equal(direct.headers.get('x-through-router'), null);
    assert.equal(throughExpress.headers.get('x-through-router'), 'yes');
    assert.equal(direct.headers.get('x-asked-forwarder'), null);
    assert.equal(throughExpress.headers.get('x-asked-forwarder'), 'yes');
    assert.deepEqual(labels, ['/vop/verify', '/v1/vop/verify']);
  });

  it('answers a rejected handler, a refusing middleware and a malformed body in the scheme format', async () => {
    const cases: [string, Record<string, string>, number][] = [
      [JSON.stringify({ name: 'throw' }), {}, 503],
      [JSON.stringify({ name: 'Ada' }), { 'x-refuse': 'yes' }, 403],
      ['{"name":', {}, 400],
    ];
    for (const [body, headers, status] of cases) {
      const direct = await post('/vop/verify', body, headers);
      const throughExpress = await post('/v1/vop/verify', body, headers);
      assert.equal(direct.status, status, body);
      assert.equal(throughExpress.status, status, body);
      // The same error body on both paths, each with its own reference and time.
      const comparable = ({
        errorReference: _reference,
        timestamp: _timestamp,
        ...rest
      }: Record<string, unknown>) => rest;
      assert.deepEqual(comparable(direct.body), comparable(throughExpress.body));
      assert.equal(direct.headers.get('retry-after'), throughExpress.headers.get('retry-after'));
    }
  });

  it('leaves a query string, another method and another path to Express', async () => {
    const withQuery = await post('/vop/verify?x=1', JSON.stringify({ name: 'Ada' }));
    assert.equal(withQuery.status, 200);
    assert.equal(withQuery.headers.get('x-through-router'), 'yes');
    const get = await fetch(`${server.url}/vop/verify`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });
});
