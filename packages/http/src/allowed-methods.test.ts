import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '@vop/observability';
import { createHttpApp } from './app.js';
import { createRouter } from './router.js';

describe('a known path asked with another method', () => {
  let server: http.Server;
  let base: string;

  before(async () => {
    const routes = createRouter();
    routes.post('/verify', (_req, res) => void res.status(201).json({}));
    routes.get('/verify/:requestId', (_req, res) => void res.json({}));
    routes.post('/vop/verify', (_req, res) => void res.json({}));
    const app = createHttpApp({
      logger: createLogger({ service: 'test', level: 'silent' }),
      respondingPsp: 'VOPBDEFFXXX',
      routers: [routes],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('answers 405 with Allow, in the error format of the path, under every base form', async () => {
    const put = await fetch(`${base}/verify`, { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'POST');
    assert.equal(((await put.json()) as { error: string }).error, 'METHOD_NOT_ALLOWED');

    const remove = await fetch(`${base}/v1/verify/abc`, { method: 'DELETE' });
    assert.equal(remove.status, 405);
    assert.equal(remove.headers.get('allow'), 'GET, HEAD');

    const scheme = await fetch(`${base}/vop/api/v1/vop/verify`, { method: 'GET' });
    assert.equal(scheme.status, 405);
    assert.equal(scheme.headers.get('allow'), 'POST');
    const body = (await scheme.json()) as { error: { code: string; category: string } };
    assert.deepEqual([body.error.code, body.error.category], ['VOP_004', 'VALIDATION_ERROR']);
  });

  it('answers 404 for a path no route serves', async () => {
    const unknown = await fetch(`${base}/verify/abc/extra`, { method: 'GET' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get('allow'), null);
  });
});

describe('a path a template without parameters spells, beside a route with a parameter there', () => {
  let server: http.Server;
  let base: string;

  before(async () => {
    const verifications = createRouter();
    verifications.get('/verify/:requestId', (_req, res) => void res.json({ read: true }));
    const batches = createRouter();
    batches.post('/verify/batch', (_req, res) => void res.status(202).json({}));
    const webhooks = createRouter();
    webhooks.get('/webhooks/dead-letters', (_req, res) => void res.json({ deliveries: [] }));
    webhooks.delete('/webhooks/:webhookId', (_req, res) => void res.status(204).end());
    const app = createHttpApp({
      logger: createLogger({ service: 'test', level: 'silent' }),
      respondingPsp: 'VOPBDEFFXXX',
      routers: [verifications, batches, webhooks],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('is that resource alone: the parameter route does not take it, another method is 405', async () => {
    const removeDeadLetters = await fetch(`${base}/webhooks/dead-letters`, { method: 'DELETE' });
    assert.equal(removeDeadLetters.status, 405);
    assert.equal(removeDeadLetters.headers.get('allow'), 'GET, HEAD');

    const readBatch = await fetch(`${base}/verify/batch`);
    assert.equal(readBatch.status, 405);
    assert.equal(readBatch.headers.get('allow'), 'POST');

    assert.equal((await fetch(`${base}/webhooks/wh_1`, { method: 'DELETE' })).status, 204);
    assert.deepEqual(await (await fetch(`${base}/verify/req_1`)).json(), { read: true });
  });

  it('answers OPTIONS with every method served on the path, across routers', async () => {
    const batch = await fetch(`${base}/verify/batch`, { method: 'OPTIONS' });
    assert.equal(batch.status, 204);
    assert.equal(batch.headers.get('allow'), 'POST');

    const verification = await fetch(`${base}/v1/verify/req_1`, { method: 'OPTIONS' });
    assert.equal(verification.headers.get('allow'), 'GET, HEAD');

    const webhook = await fetch(`${base}/webhooks/wh_1`, { method: 'OPTIONS' });
    assert.equal(webhook.headers.get('allow'), 'DELETE');

    assert.equal((await fetch(`${base}/nowhere/at/all`, { method: 'OPTIONS' })).status, 404);
  });
});
