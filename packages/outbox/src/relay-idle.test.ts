import { describe, it } from 'node:test';
import { createPgliteClient, EventStore, type SqlClient } from '@vop/event-store';
import { createInProcessBus } from '@vop/messaging';
import { eventually } from '@vop/testing';
import { OutboxRelay } from './relay.js';

/** The same database, counting the relay's reads of the store (its polls). */
function countingReads(sql: SqlClient): { sql: SqlClient; reads: () => number } {
  let reads = 0;
  const counted: SqlClient = {
    ...sql,
    kind: sql.kind,
    query: (text, params) => {
      if (text.includes('ORDER BY message.transaction_id')) reads++;
      return sql.query(text, params);
    },
    transaction: (fn) => sql.transaction(fn),
    listen: (channel, onNotify) => sql.listen(channel, onNotify),
    notify: (channel, tx) => sql.notify(channel, tx),
    close: () => sql.close(),
  };
  return { sql: counted, reads: () => reads };
}

describe('an idle outbox relay', () => {
  it('given a relay whose polls found nothing until they wait an hour, when an event is appended, then it is published at once and the polls are fast again', async () => {
    const sql = await createPgliteClient({});
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 'things', partitions: 1 }]);
    const received: string[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['things'],
      handler: async (message) => void received.push(message.value),
    });
    const counting = countingReads(sql);
    const store = new EventStore(counting.sql, { schema: 'relay_idle_test' });
    await store.migrate();
    // Waits of 1, 2, 4 … ms: after 12 reads (4 s) the next wait is 4 s, then 8 s, 16 s …
    const relay = new OutboxRelay({
      store,
      bus,
      name: 'relay',
      route: () => ({ topic: 'things', key: 'k' }),
      pollIntervalMs: 1,
      maxPollIntervalMs: 3_600_000,
    });
    await relay.start();
    try {
      await eventually(async () => (counting.reads() >= 12 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'the idle relay backed off to waits of seconds',
      });

      await store.append('thing-1', [{ type: 'ThingHappened', data: {} }], {
        expectedVersion: 'any',
      });

      await eventually(async () => (received.length === 1 ? true : undefined), {
        what: 'the append published though the fallback poll waits for seconds',
      });
      const afterPublishing = counting.reads();
      // Backed off, five more reads would take over a minute; snapped back, a few milliseconds.
      await eventually(async () => (counting.reads() >= afterPublishing + 5 ? true : undefined), {
        what: 'the polls after work at the fastest wait again',
      });
    } finally {
      await relay.stop();
      await bus.close();
      await sql.close();
    }
  });
});
