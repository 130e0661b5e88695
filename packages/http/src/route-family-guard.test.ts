import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import { createLogger } from '@vop/observability';
import { createHttpApp } from './app.js';
import { isCanonicalPath } from './path-form.js';
import { familyFor, isUncovered, UNCOVERED_FAMILY } from './route-families.js';
import { createRouter } from './router.js';
import { startHttpServer } from './server.js';

const logger = createLogger({ service: 'spec', level: 'silent' });

describe('the one spelling of a path', () => {
  it('accepts the forms every route is written in', () => {
    for (const path of [
      '/',
      '/admin/audit',
      '/v1/admin/api-keys/key_1',
      '/api/accounts/acc_0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01',
      '/docs/start.js',
      '/account/DE89370400440532013000/status',
      '/webhooks/null%2Cnull',
      '/api/accounts/M%C3%BCller',
    ])
      assert.equal(isCanonicalPath(path), true, path);
  });

  it('refuses percent-encoding, dot segments, empty segments, trailing slashes, parameters and absolute forms', () => {
    for (const path of [
      '',
      '*',
      'admin/audit',
      '/admin/%61udit',
      '/admin/audit%2D1',
      '/admin%2Faudit',
      '/admin%2faudit',
      '/admin%5Caudit',
      '/admin/%252e%252e',
      '/admin/%2',
      '/admin/%zz',
      '/admin/%2e%2e/audit',
      '/admin/./audit',
      '/test/../admin/audit',
      '/admin/..',
      '//admin/audit',
      '/admin//audit',
      '/admin/audit/',
      '/admin;x=1/audit',
      '/admin/audit;jsessionid=1',
      '/admin\\audit',
      'https://127.0.0.1/admin/audit',
      '/admin/audit#x',
      '/admin/au dit',
    ])
      assert.equal(isCanonicalPath(path), false, path);
  });

  it('gives a path in any other case, or in any other spelling, no family at all', () => {
    for (const path of [
      '/ADMIN/audit',
      '/Admin/audit',
      '/V1/admin/audit',
      '/VOP/API/V1/admin/audit',
      '/API/accounts/acc_1',
      '/HEALTH/detailed',
      '/admin/audit/',
      '/v1//admin/audit',
      '/admin/%61udit',
    ])
      assert.equal(isUncovered(familyFor(path, 'GET')), true, path);
    assert.equal(familyFor('/ADMIN/audit'), UNCOVERED_FAMILY);
    assert.equal(UNCOVERED_FAMILY.access, 'nobody');
    assert.equal(UNCOVERED_FAMILY.errorFormat, 'flat');
  });

  it("answers a spelling that falls under a family's pattern in that family's format, and lets nobody in", () => {
    for (const [path, format] of [
      ['/webhooks/a%2Fb', 'nested'],
      ['/vop/verify/', 'scheme'],
      ['/vop/v1/payee-verifications;x', 'epc'],
      ['/admin/audit/', 'flat'],
    ] as const) {
      const family = familyFor(path, 'POST');
      assert.equal(family.access, 'nobody', path);
      assert.equal(family.errorFormat, format, path);
    }
  });

  it('a GET row covers HEAD, which Express serves with the GET route, and no other method', () => {
    assert.equal(familyFor('/admin/stats', 'HEAD').name, 'analytics-management');
    assert.equal(familyFor('/admin/stats', 'POST').name, 'management');
  });
});

describe('the routers and the table are one matcher', () => {
  it("refuses to start with a router that folds case or trailing slashes (Express's default)", () => {
    const folding = express.Router();
    folding.get('/admin/audit', (_req, res) => void res.end());
    assert.throws(
      () => createHttpApp({ logger, respondingPsp: 'VOPBDEFFXXX', routers: [folding] }),
      /not case-sensitive and strict/,
    );
    const nested = createRouter();
    nested.use('/admin', express.Router());
    assert.throws(
      () => createHttpApp({ logger, respondingPsp: 'VOPBDEFFXXX', routers: [nested] }),
      /mounted at \/admin is not case-sensitive and strict/,
    );
  });

  it('answers a path no row covers 404 flat before any router, and a handler only for the path it spells', async () => {
    const reached: string[] = [];
    const router = createRouter();
    // A route whose matcher was built to fold case, as Express's default does: the guard still refuses
    // a request its template does not spell, though Express's matcher accepted it.
    (router as unknown as { caseSensitive: boolean }).caseSensitive = false;
    router.get('/Admin/audit', (_req, res) => void (reached.push('folded'), res.json({})));
    (router as unknown as { caseSensitive: boolean }).caseSensitive = true;
    router.get(
      '/admin/api-keys/:keyId',
      (req, res) => void (reached.push('key'), res.json(req.params)),
    );
    router.get('/anything', (_req, res) => void (reached.push('anything'), res.json({})));
    const app = createHttpApp({ logger, respondingPsp: 'VOPBDEFFXXX', routers: [router] });
    const server = await startHttpServer({ handler: app, host: '127.0.0.1', port: 0 });
    try {
      const get = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        return { status: response.status, body: (await response.json()) as unknown };
      };
      const notFound = { error: 'NOT_FOUND', message: 'No such endpoint' };
      assert.deepEqual(await get('/admin/audit'), { status: 404, body: notFound });
      assert.deepEqual(await get('/anything'), { status: 404, body: notFound });
      assert.deepEqual(await get('/ADMIN/api-keys/key_1'), { status: 404, body: notFound });
      assert.deepEqual(await get('/admin/api-keys/key_1/'), { status: 404, body: notFound });
      assert.deepEqual(await get('/v1/admin/api-keys/key_1'), {
        status: 200,
        body: { keyId: 'key_1' },
      });
      assert.deepEqual(reached, ['key']);
    } finally {
      await server.close();
    }
  });
});
