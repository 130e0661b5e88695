import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '@vop/observability';
import { createHttpApp } from './app.js';
import { familyFor, LONGEST_DEADLINE_MS } from './route-families.js';
import { createRouter } from './router.js';

describe('a family whose route reads the body as a stream', () => {
  let server: Server;
  let base: string;

  before(async () => {
    const routes = createRouter();
    const countBytes = createRouter();
    countBytes.post('/admin/accounts/import', async (req, res) => {
      let bytes = 0;
      for await (const chunk of req) bytes += (chunk as Buffer).length;
      res.json({ bytes });
    });
    routes.post('/admin/api-keys', (_req, res) => void res.json({ ok: true }));
    const app = createHttpApp({
      logger: createLogger({ service: 'spec', level: 'silent' }),
      respondingPsp: 'VOPBDEFFXXX',
      routers: [countBytes, routes],
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is a row of the table with a long deadline, above management', () => {
    const family = familyFor('/admin/accounts/import', 'POST');
    assert.equal(family.name, 'account-import');
    assert.equal(family.streamedBody, true);
    assert.equal(family.rateBudget, 'none');
    assert.equal(familyFor('/v1/admin/accounts/import/abc').name, 'account-import');
    assert.equal(familyFor('/admin/accounts/other').name, 'management');
    assert.ok(family.deadlineMs >= 30 * 60 * 1000);
    assert.equal(LONGEST_DEADLINE_MS, family.deadlineMs);
  });

  it('gets the body unread, whatever its type and far beyond the JSON limit', async () => {
    const body = 'iban,name\n'.repeat(20_000);
    const response = await fetch(`${base}/admin/accounts/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body,
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { bytes: body.length });
  });

  it('other families still require JSON', async () => {
    const response = await fetch(`${base}/admin/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'a,b\n',
    });
    assert.equal(response.status, 415);
  });
});
