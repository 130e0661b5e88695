import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { Lease } from './lease.js';

describe('relay lease', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
  });
  after(async () => sql.close());

  const lease = (name: string, instance: string) =>
    new Lease(sql, 'lease_test', name, instance, 60_000);

  it('given a live holder, another instance waits for it', async () => {
    const first = lease('a', 'gateway-g1');
    await first.migrate();
    assert.equal(await first.acquire(), true);
    assert.equal(await lease('a', 'gateway-g2').acquire(), false);
    assert.equal(await first.acquire(), true, 'the holder renews');
  });

  it('given a live holder, a new process of the same instance (its restart) takes the lease at once', async () => {
    const crashed = lease('b', 'gateway-g1');
    await crashed.migrate();
    assert.equal(await crashed.acquire(), true);
    const restarted = lease('b', 'gateway-g1');
    assert.equal(await restarted.acquire(), true);
    assert.equal(await lease('b', 'gateway-g2').acquire(), false);
  });

  it('given a released lease, any instance takes it', async () => {
    const holder = lease('c', 'gateway-g1');
    await holder.migrate();
    assert.equal(await holder.acquire(), true);
    await holder.release();
    assert.equal(await lease('c', 'gateway-g2').acquire(), true);
  });
});
