import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgliteClient, EventStore, type SqlClient } from '@vop/event-store';
import { createInProcessBus } from '@vop/messaging';
import { eventually } from '@vop/testing';
import { OutboxRelay } from './relay.js';

/** The same database, counting the lease statements made through it. */
function countingLeaseStatements(sql: SqlClient): { sql: SqlClient; count: () => number } {
  let count = 0;
  const counted: SqlClient = {
    ...sql,
    kind: sql.kind,
    query: (text, params) => {
      if (text.includes('.leases')) count++;
      return sql.query(text, params);
    },
    transaction: (fn) => sql.transaction(fn),
    listen: (channel, onNotify) => sql.listen(channel, onNotify),
    notify: (channel, tx) => sql.notify(channel, tx),
    close: () => sql.close(),
  };
  return { sql: counted, count: () => count };
}

describe('outbox relay on standby', () => {
  it('given another instance holds the lease, when events are appended, then the standby does not ask for the lease per append', async () => {
    const sql = await createPgliteClient({});
    const bus = createInProcessBus();
    await bus.ensureTopics([{ name: 'things', partitions: 1 }]);
    const received: string[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['things'],
      handler: async (message) => void received.push(message.value),
    });
    const route = () => ({ topic: 'things', key: 'k' });
    const store = new EventStore(sql, { schema: 'standby_test' });
    await store.migrate();
    const holder = new OutboxRelay({ store, bus, name: 'relay', route, instanceId: 'a' });
    await holder.start();
    await eventually(async () => (holder.isReady() ? true : undefined));
    const standbySql = countingLeaseStatements(sql);
    const standby = new OutboxRelay({
      store: new EventStore(standbySql.sql, { schema: 'standby_test' }),
      bus,
      name: 'relay',
      route,
      instanceId: 'b',
    });
    await standby.start();
    await eventually(async () => (standby.isReady() ? true : undefined));
    const afterStart = standbySql.count();
    for (let index = 0; index < 20; index++) {
      await store.append(`thing-${index}`, [{ type: 'ThingHappened', data: { index } }], {
        expectedVersion: 'any',
      });
      await eventually(async () => (received.length === index + 1 ? true : undefined));
    }
    // Within the lease's 5 s between looks, 20 appends woke the standby: it asked again at most once.
    assert.ok(standbySql.count() - afterStart <= 1, `lease statements: ${standbySql.count()}`);
    await standby.stop();
    await holder.stop();
    await bus.close();
    await sql.close();
  });
});
