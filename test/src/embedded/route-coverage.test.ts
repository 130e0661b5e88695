import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgliteClient } from '@vop/event-store';
import { createGateway } from '@vop/gateway';
import { createInternalApp, familyFor, mountedRoutes, uncoveredRoutes } from '@vop/http';
import { createMatchingService } from '@vop/matching';
import { createInProcessBus } from '@vop/messaging';
import { createNameMatcher } from '@vop/name-matching';
import { createLogger } from '@vop/observability';
import { createWebhookDispatcher } from '@vop/webhook-dispatcher';

describe('every mounted route belongs to a row of the route-family table', () => {
  it("the gateway with the routers composed behind it, and the matching service's internal listener", async () => {
    const sql = await createPgliteClient({});
    const bus = createInProcessBus();
    const logger = createLogger({ service: 'test', level: 'silent' });
    try {
      const matching = createMatchingService({ sql, bus, logger, matcher: createNameMatcher() });
      const gateway = createGateway({
        sql,
        bus,
        logger,
        instanceId: 'coverage',
        respondingPsp: 'VOPBDEFFXXX',
        verifyDeadlineMs: 2000,
        serviceRouters: matching.routers,
      });
      assert.deepEqual(uncoveredRoutes(gateway.app), []);

      // In the distributed run the gateway forwards by owner: every route matching serves must be
      // in a family the table gives to matching, or the edge would never send it there.
      const internal = createInternalApp({
        logger,
        respondingPsp: 'VOPBDEFFXXX',
        version: 'test',
        startedAt: 0,
        checks: [],
        isShuttingDown: () => false,
        routers: matching.routers,
        internalSecret: 'an-internal-secret-of-at-least-32-chars',
      });
      assert.deepEqual(uncoveredRoutes(internal), []);
      const owners = mountedRoutes(internal).map((route) => {
        const path = route.slice(route.indexOf(' ') + 1).replace(/:[A-Za-z_]+/g, 'x');
        return familyFor(path).owner;
      });
      assert.ok(owners.includes('matching'), 'matching owns a family');
      assert.deepEqual([...new Set(owners)].sort(), ['each', 'matching']);
    } finally {
      await bus.close();
      await sql.close();
    }
  });

  it("the webhook dispatcher's routes are all in a family it owns", async () => {
    const sql = await createPgliteClient({});
    const bus = createInProcessBus();
    const logger = createLogger({ service: 'test', level: 'silent' });
    try {
      const webhooks = createWebhookDispatcher({
        sql,
        bus,
        logger,
        settings: {
          httpsOnly: true,
          allowedNetworks: [],
          attemptTimeoutMs: 1000,
          retryDelaysMs: [],
          endpointConcurrency: 1,
          maxInFlight: 1,
          pollIntervalMs: 1000,
          endedRetentionMs: 86_400_000,
          pruneIntervalMs: 600_000,
        },
      });
      const internal = createInternalApp({
        logger,
        respondingPsp: 'VOPBDEFFXXX',
        version: 'test',
        startedAt: 0,
        checks: [],
        isShuttingDown: () => false,
        routers: webhooks.routers,
        internalSecret: 'an-internal-secret-of-at-least-32-chars',
      });
      assert.deepEqual(uncoveredRoutes(internal), []);
      const owners = mountedRoutes(internal).map((route) => {
        const path = route.slice(route.indexOf(' ') + 1).replace(/:[A-Za-z_]+/g, 'x');
        return familyFor(path).owner;
      });
      assert.deepEqual([...new Set(owners)].sort(), ['each', 'webhook-dispatcher']);
    } finally {
      await bus.close();
      await sql.close();
    }
  });
});
