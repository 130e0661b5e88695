import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgliteClient } from '@vop/event-store';
import { createGateway } from '@vop/gateway';
import { uncoveredRoutes } from '@vop/http';
import { createMatchingService } from '@vop/matching';
import { createInProcessBus } from '@vop/messaging';
import { createNameMatcher } from '@vop/name-matching';
import { createLogger } from '@vop/observability';

describe('every mounted route belongs to a row of the route-family table', () => {
  it('the gateway with the routers of the services composed behind it (the embedded app)', async () => {
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
      assert.ok(matching.routers.length > 0, 'matching owns a family');
    } finally {
      await bus.close();
      await sql.close();
    }
  });
});
