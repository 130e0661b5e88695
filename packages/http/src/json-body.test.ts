import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Router } from 'express';
import { createLogger } from '@vop/observability';
import { createHttpApp } from './app.js';

/** The answer to one POST sent as given (headers and bytes exactly), over a real socket. */
function post(
  base: string,
  body: Buffer | string,
  headers: Record<string, string>,
  path = '/admin/api-keys',
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const sent = request(`${base}${path}`, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        }),
      );
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The reason of an error in the default family's format (the direct route's path is in no other family). */
const reasonOf = (body: Record<string, unknown>) =>
  (body.error as { details?: { reason?: string } } | undefined)?.details?.reason;

const json = (body: Buffer | string) => ({
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(body)),
});

describe('reading a JSON body: plain bodies here, every other kind through body-parser', () => {
  let server: Server;
  let base: string;

  before(async () => {
    const routes = Router();
    routes.post('/admin/api-keys', (req, res) => void res.json({ received: req.body as unknown }));
    const app = createHttpApp({
      logger: createLogger({ service: 'spec', level: 'silent' }),
      respondingPsp: 'VOPBDEFFXXX',
      routers: [routes],
      bodyLimitBytes: 4096,
      // The same reader serves a direct route (direct-routes.ts), past Express's router.
      directRoutes: [
        {
          method: 'POST',
          path: '/direct',
          handler: (req, res) => void res.json({ received: req.body as unknown }),
        },
      ],
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('given plain JSON in UTF-8, with or without a charset or a byte order mark, when posted, then the route reads it as sent', async () => {
    const value = { name: 'Jürgen Groß', list: [1, 2, { deep: true }] };
    const text = JSON.stringify(value);
    for (const [body, headers] of [
      [text, json(text)],
      [text, { ...json(text), 'content-type': 'application/json; charset=UTF-8' }],
      [`\uFEFF${text}`, json(`\uFEFF${text}`)],
    ] as const) {
      for (const path of ['/admin/api-keys', '/direct']) {
        const answer = await post(base, body, headers, path);
        assert.equal(answer.status, 200, `${path} ${headers['content-type']}`);
        assert.deepEqual(answer.body.received, value);
      }
    }
  });

  it('given a body that is not an object or an array, or not JSON at all, when posted, then it is a 400 MALFORMED_JSON', async () => {
    for (const body of ['"a string"', '42', '{"name": ', 'not json']) {
      const answer = await post(base, body, json(body), '/direct');
      assert.equal(answer.status, 400, body);
      assert.equal(reasonOf(answer.body), 'MALFORMED_JSON', body);
      assert.equal((await post(base, body, json(body))).status, 400, body);
    }
  });

  it('given JSON nested deeper than any contract, when posted, then it is a 400 TOO_DEEP', async () => {
    const body = `${'['.repeat(40)}${']'.repeat(40)}`;
    const answer = await post(base, body, json(body), '/direct');
    assert.equal(answer.status, 400);
    assert.equal(reasonOf(answer.body), 'TOO_DEEP');
  });

  it('given a body over the limit, when posted, then it is a 413', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(5000) });
    const answer = await post(base, body, json(body), '/direct');
    assert.equal(answer.status, 413);
    assert.equal(reasonOf(answer.body), 'TOO_LARGE');
  });

  it('given a compressed, a chunked or a UTF-16 body, when posted, then body-parser reads it as before', async () => {
    const value = { name: 'Erika Mustermann' };
    const text = JSON.stringify(value);
    const gzipped = gzipSync(text);
    const compressed = await post(base, gzipped, { ...json(gzipped), 'content-encoding': 'gzip' });
    assert.equal(compressed.status, 200);
    assert.deepEqual(compressed.body.received, value);

    const chunked = await post(base, text, {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
    assert.equal(chunked.status, 200);
    assert.deepEqual(chunked.body.received, value);

    const utf16 = Buffer.from(text, 'utf16le');
    const wide = await post(base, utf16, {
      ...json(utf16),
      'content-type': 'application/json; charset=utf-16le',
    });
    assert.equal(wide.status, 200);
    assert.deepEqual(wide.body.received, value);

    const latin = await post(base, text, {
      ...json(text),
      'content-type': 'application/json; charset=latin1',
    });
    assert.equal(latin.status, 415);
  });
});
