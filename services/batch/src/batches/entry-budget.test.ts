import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { ApiError } from '@vop/http';
import { createEntryBudget } from './entry-budget.js';

/** A refusal of the batch entry budget: 429 RATE_LIMIT_EXCEEDED, with seconds to wait. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 429 &&
    error.code === 'RATE_LIMIT_EXCEEDED' &&
    (error.extra.retryAfterSeconds ?? 0) >= 1
  );
}

describe('batch entry budget in every environment', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
  });
  after(() => sql.close());

  it('given a test deployment, then entries draw from 60 × the test limit an hour; one more is refused', async () => {
    const budget = createEntryBudget({
      sql,
      schema: 'batch',
      settings: {
        environment: 'test',
        livePerMinute: { default: 6000 },
        testPerMinute: { default: 1, 'PSDDE-BAFIN-2': 2 },
      },
    });
    await budget.draw('PSDDE-BAFIN-1', 60);
    await assert.rejects(budget.draw('PSDDE-BAFIN-1', 1), isRefusal);
    // Another participant has a budget of its own, here twice as large.
    await budget.draw('PSDDE-BAFIN-2', 120);
    await assert.rejects(budget.draw('PSDDE-BAFIN-2', 1), isRefusal);
    // What a refused or unrecorded batch drew comes back.
    await budget.refund('PSDDE-BAFIN-1', 10);
    await budget.draw('PSDDE-BAFIN-1', 10);
  });

  it('given a test deployment without test limits, then the live limits hold it', async () => {
    const budget = createEntryBudget({
      sql,
      schema: 'batch',
      settings: { environment: 'test', livePerMinute: { default: 1 } },
    });
    await assert.rejects(budget.draw('PSDDE-BAFIN-3', 61), isRefusal);
    await budget.draw('PSDDE-BAFIN-3', 60);
  });

  it('given a live deployment, then the live limits apply, not the test ones', async () => {
    const budget = createEntryBudget({
      sql,
      schema: 'batch',
      settings: {
        environment: 'live',
        livePerMinute: { default: 2 },
        testPerMinute: { default: 1 },
      },
    });
    await budget.draw('PSDDE-BAFIN-4', 120);
    await assert.rejects(budget.draw('PSDDE-BAFIN-4', 1), isRefusal);
  });
});
