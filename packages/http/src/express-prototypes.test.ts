import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import express, { type Express } from 'express';
import { createLogger } from '@vop/observability';
import { createHttpApp } from './app.js';
import { startHttpServer, type RunningServer } from './server.js';
import { createRouter } from './router.js';

interface Seen {
  requestBornWithAppPrototype: boolean;
  responseBornWithAppPrototype: boolean;
}

/** A route that answers what Express and Node gave it. */
function reportingApp(): Express {
  const router = createRouter();
  router.post('/verify', (req, res) => {
    res.status(201).json({
      body: req.body as unknown,
      header: req.get('x-marker'),
      stillNodeObjects: req instanceof http.IncomingMessage && res instanceof http.ServerResponse,
    });
  });
  const app = createHttpApp({
    logger: createLogger({ service: 'spec', level: 'silent' }),
    respondingPsp: 'VOPBDEFFXXX',
    routers: [router],
  });
  return app;
}

async function post(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-marker': 'kept' },
    body: JSON.stringify({ name: 'Ada' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('a server of an Express app makes its requests and responses with the app prototypes', () => {
  const app = reportingApp();
  const seen: Seen[] = [];
  let direct: RunningServer;
  let wrapped: RunningServer;

  before(async () => {
    direct = await startHttpServer({
      handler: (req: http.IncomingMessage, res: http.ServerResponse) => {
        seen.push({
          requestBornWithAppPrototype: Object.getPrototypeOf(req) === app.request,
          responseBornWithAppPrototype: Object.getPrototypeOf(res) === app.response,
        });
        app(req, res);
      },
      app,
      host: '127.0.0.1',
      port: 0,
    });
    wrapped = await startHttpServer({ handler: app, host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await direct.close();
    await wrapped.close();
  });

  it('hands Express objects that already have its prototypes, so it moves none of them', async () => {
    const answer = await post(direct.url);
    assert.equal(answer.status, 201);
    assert.deepEqual(seen.at(-1), {
      requestBornWithAppPrototype: true,
      responseBornWithAppPrototype: true,
    });
  });

  it('keeps what Express adds and what Node makes: the parsed body, req.get, res.status and res.json', async () => {
    for (const server of [direct, wrapped]) {
      const answer = await post(server.url);
      assert.equal(answer.status, 201);
      assert.deepEqual(answer.body, {
        body: { name: 'Ada' },
        header: 'kept',
        stillNodeObjects: true,
      });
    }
  });

  it('keeps the app on its prototypes (req.app), and a second server of the app reuses them', async () => {
    const { request } = app;
    const again = await startHttpServer({ handler: app, host: '127.0.0.1', port: 0 });
    try {
      assert.equal(app.request, request);
      assert.equal((app.request as { app?: unknown }).app, app);
      assert.equal((await post(again.url)).status, 201);
    } finally {
      await again.close();
    }
  });

  it('leaves a plain handler with Node’s own classes', async () => {
    let prototype: unknown;
    const plain = await startHttpServer({
      handler: (req: http.IncomingMessage, res: http.ServerResponse) => {
        prototype = Object.getPrototypeOf(req);
        res.end();
      },
      host: '127.0.0.1',
      port: 0,
    });
    try {
      await fetch(plain.url);
      assert.equal(prototype, http.IncomingMessage.prototype);
      assert.equal(Object.getPrototypeOf(express.request), http.IncomingMessage.prototype);
    } finally {
      await plain.close();
    }
  });
});
