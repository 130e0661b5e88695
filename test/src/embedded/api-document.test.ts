import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAnalyticsService } from '@vop/analytics';
import { createBatchService } from '@vop/batch';
import { loadConfig } from '@vop/config';
import { createPgliteClient } from '@vop/event-store';
import { createGateway } from '@vop/gateway';
import { familyFor, mountedRoutes, ROUTE_FAMILIES, servedApiDocument } from '@vop/http';
import { createMatchingService } from '@vop/matching';
import { createInProcessBus } from '@vop/messaging';
import { createNameMatcher } from '@vop/name-matching';
import { createLogger } from '@vop/observability';
import { createWebhookDispatcher, webhookSettings } from '@vop/webhook-dispatcher';
import { runEmbedded, type RunningEmbedded } from './fixtures.js';

const canonical = (route: string) =>
  route
    .replace(/ \/(v1|vop\/api\/v1)(?=\/)/, ' ')
    .replace(/:[A-Za-z_]+/g, '{}')
    .replace(/\{[^}]+\}/g, '{}');

describe('the OpenAPI document', () => {
  it('covers every route the embedded service mounts, every service composed', async () => {
    const sql = await createPgliteClient({});
    const bus = createInProcessBus();
    const logger = createLogger({ service: 'test', level: 'silent' });
    try {
      const matching = createMatchingService({ sql, bus, logger, matcher: createNameMatcher() });
      const batch = createBatchService({ sql, bus, logger });
      const webhooks = createWebhookDispatcher({
        sql,
        bus,
        logger,
        settings: webhookSettings(loadConfig({})),
      });
      const analytics = createAnalyticsService({ sql, bus, logger, version: 'test' });
      const gateway = createGateway({
        sql,
        bus,
        logger,
        instanceId: 'doc',
        respondingPsp: 'VOPBDEFFXXX',
        verifyDeadlineMs: 2000,
        serviceRouters: [
          ...matching.routers,
          ...batch.routers,
          ...webhooks.routers,
          ...analytics.routers,
        ],
      });
      const documented = new Set<string>();
      for (const [path, item] of Object.entries(servedApiDocument('test').paths ?? {}))
        for (const method of Object.keys(item as object))
          documented.add(canonical(`${method.toUpperCase()} ${path}`));
      const mounted = new Set(mountedRoutes(gateway.app).map(canonical));
      // Static files of the docs page are one documented page, not operations.
      const missing = [...mounted].filter(
        (route) => !documented.has(route) && !route.startsWith('GET /docs/'),
      );
      assert.deepEqual(missing, []);
    } finally {
      await bus.close();
      await sql.close();
    }
  });

  it('declares security and the edge answers of each operation from its route family', () => {
    const document = servedApiDocument('test');
    const schemes = document.components?.securitySchemes ?? {};
    assert.deepEqual(Object.keys(schemes).sort(), ['apiKey', 'mutualTLS']);
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Record<string, any>)) {
        operations++;
        const family = familyFor(path.replace(/\{[^}]+\}/g, 'x'), method.toUpperCase());
        const statuses = Object.keys(operation.responses);
        const where = `${method} ${path}`;
        if (family.errorFormat === 'epc') {
          assert.deepEqual(statuses.sort(), ['200', '400', '401', '500'], where);
          continue;
        }
        for (const status of ['400', '500', '503']) assert.ok(statuses.includes(status), where);
        if (family.access === 'open') assert.deepEqual(operation.security, [], where);
        else {
          assert.ok(statuses.includes('401') && statuses.includes('403'), where);
          assert.deepEqual(operation.security[0], { mutualTLS: [] }, where);
          assert.equal(
            operation.security.some((requirement: object) => 'apiKey' in requirement),
            family.apiKeyScope !== null,
            where,
          );
        }
        assert.equal(statuses.includes('429'), family.rateBudget !== 'none', where);
        // The scheme's deadline answer; other families answer 503 at the edge's deadline (and the
        // synchronous verification routes declare their own 504).
        if (family.errorFormat === 'scheme') assert.ok(statuses.includes('504'), where);
        if (operation.requestBody) assert.ok(statuses.includes('413') && statuses.includes('415'));
      }
    }
    assert.ok(operations >= 25, `only ${operations} operations`);
  });

  it("tags each operation with its route family, the families in the table's order (issue 43)", () => {
    const document = servedApiDocument('test');
    const tagged = new Set<string>();
    for (const [path, item] of Object.entries(document.paths ?? {}))
      for (const [method, operation] of Object.entries(item as Record<string, any>)) {
        const family = familyFor(path.replace(/\{[^}]+\}/g, 'x'), method.toUpperCase());
        assert.deepEqual(operation.tags, [family.name], `${method} ${path}`);
        tagged.add(family.name);
      }
    const names = (document.tags ?? []).map((tag) => tag.name);
    assert.deepEqual(
      names,
      ROUTE_FAMILIES.map((family) => family.name).filter((name) => tagged.has(name)),
    );
    assert.ok(names.length >= 10, names.join(', '));
    for (const tag of document.tags ?? []) assert.match(tag.description ?? '', /^Paths `/);
  });

  it("leaves what only a test deployment serves out of a live deployment's document", () => {
    const test = Object.keys(servedApiDocument('test', { environment: 'test' }).paths ?? {});
    const live = servedApiDocument('live', { environment: 'live' });
    const livePaths = Object.keys(live.paths ?? {});
    const testOnly = (path: string) => path === '/test' || path.startsWith('/test/');
    assert.ok(test.some(testOnly));
    assert.deepEqual(livePaths.filter(testOnly), []);
    assert.ok(livePaths.includes('/vop/verify') && livePaths.includes('/admin/stats'));
    assert.equal((live.paths as Record<string, any>)['/api/accounts']?.post, undefined);
    assert.ok(!livePaths.includes('/admin/reset-test-data'));
    assert.ok(!(live.tags ?? []).some((tag) => tag.name === 'test-toolkit'));
  });

  it('states the lengths and patterns validation enforces', () => {
    const schemas = servedApiDocument('test').components?.schemas as Record<string, any>;
    const name = schemas.SchemeVerifyRequest.properties.party.properties.name;
    assert.equal(name.maxLength, 140);
    // One line with a visible character: what HolderName refuses, the pattern refuses too.
    const pattern = new RegExp(name.pattern);
    for (const refused of ['', '   ', 'Erika\tMustermann', 'Erika\u0000'])
      assert.equal(pattern.test(refused), false, JSON.stringify(refused));
    assert.equal(pattern.test(' Erika Mustermann '), true);
    const domestic = schemas.AccountNumberVerifyRequest.properties;
    assert.equal(domestic.accountNumber.pattern, '^\\d{8}$');
  });
});

describe('the served API document and docs page', () => {
  let service: RunningEmbedded;
  before(async () => {
    service = await runEmbedded();
  });
  after(async () => service.stop());

  it('serves /openapi.json and a /docs page that loads only its own scripts and styles', async () => {
    const document = await service.client.get('/openapi.json');
    assert.equal(document.status, 200);
    assert.equal(document.body.openapi, '3.1.0');
    assert.ok(document.body.paths['/vop/verify']);
    const page = await service.client.get('/docs');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.doesNotMatch(page.text, /https?:\/\//);
    for (const asset of [
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
      '/docs/start.js',
    ]) {
      const response = await service.client.get(asset);
      assert.equal(response.status, 200, asset);
    }
    assert.equal((await service.client.get('/docs/assets/../package.json')).status !== 200, true);
  });
});
