import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import type { IncomingMessage } from '@vop/messaging';
import {
  dropRetiredInbox,
  idempotentBatchHandler,
  type IdempotentBatchHandlerOptions,
  migrateInbox,
} from './inbox.js';

function message(data: unknown): IncomingMessage {
  const eventId = randomUUID();
  const envelope = {
    eventId,
    type: 'ThingHappened',
    version: 1,
    occurredAt: new Date().toISOString(),
    correlationId: eventId,
    streamId: 'thing-1',
    streamPosition: 1,
    data,
  };
  return {
    topic: 't',
    partition: 0,
    offset: '0',
    key: 'k',
    value: JSON.stringify(envelope),
    headers: {},
  };
}

async function processedCount(sql: SqlClient): Promise<number> {
  const { rows } = await sql.query<{ count: string }>(
    `SELECT count(*)::text AS count FROM inbox_test.processed_events`,
  );
  return Number(rows[0]?.count);
}

/** A handler on a fresh inbox whose applied events' data are kept in `applied`, in order. */
async function handlerWith(
  options: Pick<IdempotentBatchHandlerOptions, 'consumer' | 'relevant' | 'repeatSafe'>,
) {
  const sql = await createPgliteClient({});
  await migrateInbox(sql, 'inbox_test');
  const applied: unknown[] = [];
  const handle = idempotentBatchHandler({
    sql,
    schema: 'inbox_test',
    ...options,
    applyBatch: async (envelopes) => void applied.push(...envelopes.map((e) => e.data)),
  });
  return { sql, handle, applied };
}

describe('idempotent batch handler', () => {
  it('given a read model that reads some events, when a delivery holds others too, then only its events are applied and recorded', async () => {
    const { sql, handle, applied } = await handlerWith({
      consumer: 'batch-progress',
      relevant: (envelope) => (envelope.data as { batch?: string }).batch !== undefined,
    });
    await handle([message({ single: 1 }), message({ batch: 'b1' }), message({ single: 2 })]);
    await handle([message({ single: 3 })]);
    assert.deepEqual(applied, [{ batch: 'b1' }]);
    assert.equal(await processedCount(sql), 1);
    await sql.close();
  });

  it('given events a repeat cannot change, when a delivery mixes them with others and comes again, then all are applied in order the first time, only the others are recorded, and again only the safe ones are applied', async () => {
    const { sql, handle, applied } = await handlerWith({
      consumer: 'analytics',
      repeatSafe: (envelope) => (envelope.data as { revision?: number }).revision !== undefined,
    });
    const delivery = [message({ revision: 1 }), message({ once: 1 }), message({ revision: 2 })];
    await handle(delivery);
    assert.deepEqual(applied, [{ revision: 1 }, { once: 1 }, { revision: 2 }]);
    assert.equal(await processedCount(sql), 1);
    applied.length = 0;
    await handle(delivery);
    assert.deepEqual(applied, [{ revision: 1 }, { revision: 2 }]);
    applied.length = 0;
    await handle([message({ revision: 3 })]);
    assert.deepEqual(applied, [{ revision: 3 }]);
    assert.equal(await processedCount(sql), 1);
    await sql.close();
  });
});

describe('a retired inbox', () => {
  it('given a PGlite store holding processed ids, when retired, then the table is gone, and retiring again finds none', async () => {
    const { sql, handle } = await handlerWith({ consumer: 'retired' });
    try {
      await handle([message({ n: 1 })]);
      assert.equal(await processedCount(sql), 1);
      assert.equal(await dropRetiredInbox(sql, 'inbox_test'), true);
      const { rows } = await sql.query<{ table: string | null }>(
        `SELECT to_regclass('inbox_test.processed_events')::text AS table`,
      );
      assert.equal(rows[0]?.table, null);
      assert.equal(await dropRetiredInbox(sql, 'inbox_test'), false);
    } finally {
      await sql.close();
    }
  });
});
