import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import express, { type ErrorRequestHandler } from 'express';
import { ApiError } from './errors.js';
import { refuseDeepJson } from './hostile-input.js';
import { jsonBody } from './json-body.js';
import { startHttpServer, type RunningServer } from './server.js';

interface Answer {
  status: number;
  /** Whether body-parser read the body rather than the plain reader. */
  fellBack: boolean;
  /** The parsed body, or the error's code (ours) or type (body-parser's). */
  json: { body?: unknown; error?: string };
}

/**
 * Given the plain JSON reader in front of body-parser (the fallback), when bodies of every kind arrive,
 * then the plain one reads UTF-8 JSON with a length within the limit, and refuses what body-parser
 * would refuse, with our errors; everything else is left to body-parser, which answers as before.
 */
describe('jsonBody: a plain JSON body read without body-parser, the rest left to it', () => {
  const LIMIT = 256;
  let server: RunningServer;

  before(async () => {
    const app = express();
    app.use(
      jsonBody({
        limitBytes: LIMIT,
        fallback: (req, res, next) => {
          res.setHeader('X-Fell-Back', 'yes');
          express.json({
            limit: LIMIT,
            type: ['application/json', 'application/*+json'],
            verify: refuseDeepJson,
          })(req, res, next);
        },
      }),
    );
    app.post('/', (req, res) => {
      res.json({ body: req.body as unknown });
    });
    const answerError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
      if (error instanceof ApiError) return res.status(error.status).json({ error: error.code });
      const { status, type } = error as { status?: number; type?: string };
      res.status(status ?? 500).json({ error: type });
    };
    app.use(answerError);
    server = await startHttpServer({ handler: app, host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await server?.close();
  });

  const post = async (body: Buffer | string, headers: Record<string, string>): Promise<Answer> => {
    const response = await fetch(server.url, { method: 'POST', headers, body });
    return {
      status: response.status,
      fellBack: response.headers.get('x-fell-back') === 'yes',
      json: (await response.json()) as Answer['json'],
    };
  };
  const json = { 'content-type': 'application/json' };

  /** A body sent in parts without a Content-Length (Transfer-Encoding: chunked). */
  const postChunked = (parts: string[]): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(server.url, { method: 'POST', headers: json }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            fellBack: response.headers['x-fell-back'] === 'yes',
            json: JSON.parse(text) as Answer['json'],
          }),
        );
      });
      request.on('error', reject);
      for (const part of parts) request.write(part);
      request.end();
    });

  it('reads an object or an array in UTF-8, with or without a byte-order mark', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const cases: [Buffer | string, Record<string, string>, unknown][] = [
      ['{"name":"Zoë"}', json, { name: 'Zoë' }],
      ['  \n[1,2]', json, [1, 2]],
      [Buffer.concat([bom, Buffer.from('{"a":1}')]), json, { a: 1 }],
      ['{"a":1}', { 'content-type': 'Application/JSON; charset=UTF-8' }, { a: 1 }],
    ];
    for (const [body, headers, expected] of cases) {
      const answer = await post(body, headers);
      assert.deepEqual(answer, { status: 200, fellBack: false, json: { body: expected } });
    }
  });

  it('turns bytes that are not UTF-8 into U+FFFD, as body-parser does (refused later by the edge)', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"A'), Buffer.from([0xff]), Buffer.from('"}')]);
    const plain = await post(body, json);
    const throughBodyParser = await post(body, { 'content-type': 'application/vnd.x+json' });
    assert.deepEqual(plain, { status: 200, fellBack: false, json: { body: { name: 'A\uFFFD' } } });
    assert.deepEqual(throughBodyParser, { ...plain, fellBack: true });
  });

  it('refuses what is not JSON, a scalar, blank text and a body nested too deep, as body-parser would', async () => {
    const deep = `${'['.repeat(33)}${']'.repeat(33)}`;
    for (const [body, code] of [
      ['{"name":', 'INVALID_JSON'],
      ['"a string"', 'INVALID_JSON'],
      ['   ', 'INVALID_JSON'],
      [deep, 'INVALID_REQUEST'],
    ] as const) {
      const plain = await post(body, json);
      assert.deepEqual(plain, { status: 400, fellBack: false, json: { error: code } }, body);
      // body-parser refuses the same bodies (its own error types, which the app's handler maps).
      const throughBodyParser = await post(body, { 'content-type': 'application/vnd.x+json' });
      assert.equal(throughBodyParser.fellBack, true);
      assert.equal(
        throughBodyParser.json.error,
        code === 'INVALID_JSON' ? 'entity.parse.failed' : 'entity.too.deep',
      );
    }
  });

  it('leaves compressed, chunked, other-charset, other-type and oversized bodies to body-parser', async () => {
    const compressed = await post(gzipSync('{"a":1}'), { ...json, 'content-encoding': 'gzip' });
    assert.deepEqual(compressed, { status: 200, fellBack: true, json: { body: { a: 1 } } });
    const chunked = await postChunked(['{"a"', ':1}']);
    assert.deepEqual(chunked, { status: 200, fellBack: true, json: { body: { a: 1 } } });
    const latin1 = await post('{"a":1}', { 'content-type': 'application/json; charset=latin1' });
    assert.deepEqual(latin1, {
      status: 415,
      fellBack: true,
      json: { error: 'charset.unsupported' },
    });
    const patch = await post('{"a":1}', { 'content-type': 'application/merge-patch+json' });
    assert.deepEqual(patch, { status: 200, fellBack: true, json: { body: { a: 1 } } });
    const oversized = await post(JSON.stringify({ name: 'x'.repeat(LIMIT) }), json);
    assert.deepEqual(oversized, {
      status: 413,
      fellBack: true,
      json: { error: 'entity.too.large' },
    });
  });
});
