import { describe, it } from 'node:test';
import type { WebhookRecord } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { projectionSpec } from '@vop/testing';
import { enqueueDeliveries, migrateDeliveries } from '../deliveries/queue.js';
import type { RegistrationEvent } from './decider.js';
import {
  findRegistration,
  listRegistrations,
  migrateRegistrations,
  projectRegistrationEvents,
} from './read-model.js';

const SCHEMA = 'webhooks';
const webhookId = '0b7c2f0e-5d7e-4a8e-9a43-3d3c1f1e2a10';
const spec = projectionSpec<RegistrationEvent>({
  migrate: async (sql) => {
    await migrateRegistrations(sql, SCHEMA);
    await migrateDeliveries(sql, SCHEMA);
  },
  project: (tx, events) => projectRegistrationEvents(tx, SCHEMA, events),
});
const registered: RegistrationEvent = {
  type: 'WebhookRegistered',
  data: {
    webhookId,
    participant: 'PSP-A',
    url: 'https://receiver.example/hooks',
    events: ['verification.success'],
    secret: 'a-secret-of-sixteen+',
    registeredAt: '2026-01-02T03:04:05.000Z',
  },
};
const record: WebhookRecord = {
  id: webhookId,
  url: 'https://receiver.example/hooks',
  events: ['verification.success'],
  enabled: true,
  created_at: '2026-01-02T03:04:05.000Z',
};

describe('the registrations read model', () => {
  it('a registration is read by its participant only, without its secret', async () => {
    await spec
      .given([])
      .when([registered])
      .then(
        async (sql: SqlExecutor) => ({
          own: await listRegistrations(sql, SCHEMA, 'PSP-A'),
          other: await listRegistrations(sql, SCHEMA, 'PSP-B'),
        }),
        { own: [record], other: [] },
      );
  });

  // The queue is not an event's doing, so the delivery is queued in the query and the disabling
  // projected again after it (projecting an event twice changes nothing).
  it('a disabled registration says why and cancels what was still queued for it', async () => {
    const queue = async (sql: SqlExecutor) => {
      await enqueueDeliveries(
        sql,
        SCHEMA,
        [
          {
            id: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
            webhookId,
            sourceEventId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
            eventType: 'verification.success',
            payload: '{}',
          },
        ],
        new Date('2026-01-02T03:04:06.000Z'),
      );
    };
    await spec
      .given([registered])
      .when([
        {
          type: 'WebhookDisabled',
          data: { webhookId, reason: 'gone', disabledAt: '2026-01-02T04:00:00.000Z' },
        },
      ])
      .then(
        async (sql: SqlExecutor) => {
          await queue(sql);
          await projectRegistrationEvents(sql, SCHEMA, [
            {
              type: 'WebhookDisabled',
              data: { webhookId, reason: 'gone', disabledAt: '2026-01-02T04:00:00.000Z' },
            },
          ]);
          const { rows } = await sql.query<{ status: string }>(
            `SELECT status FROM ${SCHEMA}.deliveries`,
          );
          return { record: await findRegistration(sql, SCHEMA, 'PSP-A', webhookId), rows };
        },
        {
          record: { ...record, enabled: false, disabled_reason: 'gone' },
          rows: [{ status: 'cancelled' }],
        },
      );
  });

  it('a deleted registration is gone from every query', async () => {
    await spec
      .given([registered])
      .when([
        { type: 'WebhookDeleted', data: { webhookId, deletedAt: '2026-01-02T05:00:00.000Z' } },
      ])
      .then(
        async (sql: SqlExecutor) => ({
          list: await listRegistrations(sql, SCHEMA, 'PSP-A'),
          one: await findRegistration(sql, SCHEMA, 'PSP-A', webhookId),
        }),
        { list: [], one: undefined },
      );
  });
});
