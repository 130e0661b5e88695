import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createPostgresClient, EventStore, type SqlClient } from '@vop/event-store';
import { createTestDatabase, type TestDatabase } from '@vop/testing';
import { handleRegistration } from '../registrations/command-handler.js';
import { migrateRegistrations } from '../registrations/read-model.js';
import {
  claimDueDeliveries,
  enqueueDeliveries,
  migrateDeliveries,
  recordAttempts,
  releaseLeases,
  cancelPendingDeliveries,
} from './queue.js';

const SCHEMA = 'webhooks';

describe('the delivery queue on PostgreSQL: instances share it through leases', () => {
  let database: TestDatabase;
  let sql: SqlClient;
  let store: EventStore;
  before(async () => {
    database = await createTestDatabase('webhook_queue');
    sql = createPostgresClient({ connectionString: database.url, max: 8 });
    store = new EventStore(sql, { schema: SCHEMA });
    await store.migrate();
    await migrateRegistrations(sql, SCHEMA);
    await migrateDeliveries(sql, SCHEMA);
  });
  after(async () => {
    await sql?.close();
    await database?.drop();
  });

  async function register(): Promise<string> {
    const webhookId = randomUUID();
    await handleRegistration(store, webhookId, {
      type: 'RegisterWebhook',
      data: {
        webhookId,
        participant: 'PSP-Q',
        url: 'https://receiver.example/hook',
        events: ['verification.success'],
        secret: 'a-secret-of-sixteen+',
        now: new Date(),
      },
    });
    return webhookId;
  }

  it('concurrent claims never hand one delivery to two instances, and keep the per-registration bound', async () => {
    const webhooks = [await register(), await register(), await register()];
    const now = new Date();
    const queued = webhooks.flatMap((webhookId) =>
      Array.from({ length: 40 }, () => ({
        id: randomUUID(),
        webhookId,
        sourceEventId: randomUUID(),
        eventType: 'verification.success' as const,
        payload: '{}',
      })),
    );
    await enqueueDeliveries(sql, SCHEMA, queued, now);
    // The same source event again is not queued twice.
    assert.equal((await enqueueDeliveries(sql, SCHEMA, queued.slice(0, 5), now)).size, 0);

    // Six instances claiming at once, each with room for 30 of a registration: together they lease
    // 5 of each, the bound, counting the leases the others took first.
    const claim = (_: unknown, instance: number) =>
      claimDueDeliveries(sql, SCHEMA, {
        now: new Date(),
        leaseUntil: new Date(Date.now() + 60_000),
        perWebhook: 5,
        room: {},
        defaultRoom: 30,
        limit: 100,
        owner: `instance-${instance}`,
      });
    const rounds = await Promise.all(Array.from({ length: 6 }, claim));
    const claimed = rounds.flatMap((round) => round.claimed);
    assert.equal(new Set(claimed.map((delivery) => delivery.id)).size, claimed.length);
    for (const webhookId of webhooks) {
      assert.equal(claimed.filter((delivery) => delivery.webhookId === webhookId).length, 5);
      // What each instance may have in flight (the bound less the others' leases) sums to the bound.
      const mayRun = rounds.map((round) => {
        const mine = round.claimed.filter((delivery) => delivery.webhookId === webhookId).length;
        return Math.max(0, Math.min(mine, 5 - (round.heldElsewhere.get(webhookId) ?? 0)));
      });
      assert.equal(
        mayRun.reduce((sum, count) => sum + count, 0),
        5,
      );
    }

    // Recorded attempts release their leases; a failed one comes due again at its time.
    const [first, second] = claimed;
    assert.ok(first && second);
    await sql.transaction((tx) =>
      recordAttempts(tx, SCHEMA, [
        {
          deliveryId: first.id,
          attemptedAt: new Date(),
          statusCode: 204,
          latencyMs: 3,
          outcome: 'delivered',
          status: 'delivered',
          nextAttemptAt: null,
        },
        {
          deliveryId: second.id,
          attemptedAt: new Date(),
          statusCode: 500,
          latencyMs: 4,
          outcome: 'http_error',
          status: 'pending',
          nextAttemptAt: new Date(Date.now() - 1),
        },
      ]),
    );
    const { rows } = await sql.query<{ id: string; status: string; attempts: number }>(
      `SELECT id, status, attempts FROM ${SCHEMA}.deliveries WHERE id IN ($1, $2) ORDER BY status`,
      [first.id, second.id],
    );
    assert.deepEqual(
      rows.map((row) => [row.id, row.status, row.attempts]),
      [
        [first.id, 'delivered', 1],
        [second.id, 'pending', 1],
      ],
    );
    const { claimed: again } = await claimDueDeliveries(sql, SCHEMA, {
      now: new Date(),
      leaseUntil: new Date(Date.now() + 60_000),
      perWebhook: 40,
      room: {},
      defaultRoom: 500,
      limit: 500,
      owner: 'instance-0',
    });
    assert.ok(again.some((delivery) => delivery.id === second.id && delivery.attempts === 1));
    assert.ok(!again.some((delivery) => claimed.slice(2).some((c) => c.id === delivery.id)));
  });
  it('leases given back are claimed at once by another instance; an attempt on a cancelled delivery leaves it cancelled', async () => {
    const webhookId = await register();
    const now = new Date();
    const queued = Array.from({ length: 4 }, () => ({
      id: randomUUID(),
      webhookId,
      sourceEventId: randomUUID(),
      eventType: 'verification.success' as const,
      payload: '{}',
      leaseUntil: new Date(now.getTime() + 60_000),
      leaseOwner: 'stopping',
    }));
    await enqueueDeliveries(sql, SCHEMA, queued, now);
    const claimBy = (owner: string) =>
      claimDueDeliveries(sql, SCHEMA, {
        now: new Date(),
        leaseUntil: new Date(Date.now() + 60_000),
        perWebhook: 10,
        room: {},
        defaultRoom: 10,
        limit: 100,
        owner,
      });
    // Leased to an instance: nobody else may take them, and they count against the bound.
    const meanwhile = await claimBy('other');
    assert.equal(meanwhile.claimed.length, 0);
    // Given back by the instance that stops (another owner's release changes nothing).
    const ids = queued.map((delivery) => delivery.id);
    await releaseLeases(sql, SCHEMA, { deliveryIds: ids, owner: 'somebody-else' });
    assert.equal((await claimBy('other')).claimed.length, 0);
    await releaseLeases(sql, SCHEMA, { deliveryIds: ids, owner: 'stopping' });
    const taken = await claimBy('other');
    assert.deepEqual(taken.claimed.map((delivery) => delivery.id).sort(), [...ids].sort());

    // The registration is deleted while an attempt is in flight: the attempt is logged, the
    // delivery stays cancelled (not delivered, not pending again).
    await sql.transaction((tx) => cancelPendingDeliveries(tx, SCHEMA, webhookId));
    await sql.transaction((tx) =>
      recordAttempts(tx, SCHEMA, [
        {
          deliveryId: ids[0]!,
          attemptedAt: new Date(),
          statusCode: 500,
          latencyMs: 2,
          outcome: 'http_error',
          status: 'pending',
          nextAttemptAt: new Date(),
        },
      ]),
    );
    const { rows } = await sql.query<{ status: string; logged: number }>(
      `SELECT d.status, (SELECT count(*)::int FROM ${SCHEMA}.delivery_attempts a
          WHERE a.delivery_id = d.id) AS logged
         FROM ${SCHEMA}.deliveries d WHERE d.id = $1`,
      [ids[0]],
    );
    assert.deepEqual(rows, [{ status: 'cancelled', logged: 1 }]);
  });
});
