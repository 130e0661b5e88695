import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import { uncoveredRoutes } from './route-coverage.js';
import { familyFor, ownedBy, ROUTE_FAMILIES, UNCOVERED_FAMILY } from './route-families.js';

describe('the route-family table', () => {
  it('gives each path the first row that matches, under every base form', () => {
    const cases: [string, string][] = [
      ['/livez', 'operations'],
      ['/admin/matching/explain', 'matching-management'],
      ['/v1/admin/matching/explain', 'matching-management'],
      ['/admin/api-keys/key_1', 'management'],
      ['/admin/bank-codes', 'management'],
      ['/v1/admin/scheme-directory', 'management'],
      ['/admin', 'management'],
      ['/health/detailed', 'management'],
      ['/admin/reset-test-data', 'test-data'],
      ['/v1/admin/import-test-data', 'test-data'],
      ['/vop/api/v1/vop/verify', 'scheme'],
      ['/vop/v1/payee-verifications', 'epc'],
      ['/v1/vop/v1/payee-verifications', 'epc'],
      ['/vop/v1', 'epc'],
      ['/vop/v1x', 'scheme'],
      ['/verify', 'request-result'],
      ['/api/verify/abc', 'request-result'],
      ['/api/v1/verify', 'simple'],
      ['/accounts', 'account-records'],
      ['/api/accounts/acc_1', 'account-records-api'],
    ];
    for (const [path, family] of cases) assert.equal(familyFor(path).name, family, path);
  });

  it('loading the reference data is a family of its own with a longer deadline; reading it is management', () => {
    assert.equal(familyFor('/admin/bank-codes', 'PUT').name, 'reference-data');
    assert.equal(familyFor('/v1/admin/scheme-directory', 'PUT').name, 'reference-data');
    assert.equal(familyFor('/admin/scheme-directory', 'GET').name, 'management');
    assert.ok(
      familyFor('/admin/bank-codes', 'PUT').deadlineMs > familyFor('/admin/bank-codes').deadlineMs,
    );
  });

  it("the sandbox endpoints are a family of their own by method; the bank's writes draw no budget", () => {
    const uuid = '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01';
    assert.equal(familyFor('/api/accounts', 'POST').name, 'sandbox-accounts');
    assert.equal(familyFor('/v1/api/accounts/acc_' + uuid, 'DELETE').name, 'sandbox-accounts');
    assert.equal(familyFor('/api/accounts/' + uuid, 'DELETE').name, 'account-records-api');
    assert.equal(familyFor('/api/accounts/acc_' + uuid, 'GET').name, 'account-records-api');
    assert.equal(familyFor('/api/accounts', 'GET').name, 'account-records-api');
    assert.equal(familyFor('/api/accounts/acc_' + uuid).name, 'account-records-api');
    assert.equal(familyFor('/api/accounts', 'POST').rateBudget, 'sandbox-writes');
    assert.equal(familyFor('/accounts', 'POST').rateBudget, 'none');
    assert.equal(familyFor('/api/accounts/' + uuid, 'PUT').rateBudget, 'none');
  });

  it('matches whole segments: a longer word is not the family', () => {
    assert.equal(familyFor('/verifyall'), UNCOVERED_FAMILY);
    assert.equal(familyFor('/healthz'), UNCOVERED_FAMILY);
    assert.equal(familyFor('/administrator'), UNCOVERED_FAMILY);
  });

  it('names an owner for every row, and ownership follows the first matching row', () => {
    for (const family of ROUTE_FAMILIES) assert.ok(family.owner.length > 0, family.name);
    assert.equal(ownedBy('matching')('/admin/matching/explain'), true);
    assert.equal(ownedBy('gateway')('/admin/matching/explain'), false);
    assert.equal(ownedBy('gateway')('/admin/audit'), true);
  });

  it('API keys are accepted only where a scope is named, never on the scheme or management families', () => {
    assert.equal(familyFor('/vop/verify').apiKeyScope, null);
    assert.equal(familyFor('/admin/api-keys').apiKeyScope, null);
    assert.equal(familyFor('/accounts').apiKeyScope, null);
    assert.equal(familyFor('/verify').apiKeyScope, 'verify');
    assert.equal(familyFor('/api/accounts/1').apiKeyScope, 'accounts');
  });
});

describe('route coverage', () => {
  it('reports a mounted route that no row covers, nested routers and parameters included', () => {
    const app = express();
    const nested = express.Router();
    nested.get('/:id', (_req, res) => void res.end());
    const routes = express.Router();
    routes.post('/verify', (_req, res) => void res.end());
    routes.get('/reports/:id', (_req, res) => void res.end());
    routes.use('/api/verify', nested);
    routes.use('/elsewhere', nested);
    app.use('/', routes);
    app.use('/v1', routes);
    assert.deepEqual(uncoveredRoutes(app).sort(), [
      'GET /elsewhere/:id',
      'GET /reports/:id',
      'GET /v1/elsewhere/:id',
      'GET /v1/reports/:id',
    ]);
  });
});
