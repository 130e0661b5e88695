import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '@vop/config';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { eventually } from '@vop/testing';
import { startHarness, startReceiver } from '../spec/harness.js';
import { webhookSettings } from '../settings.js';
import { firstEndsOf, pruneEndedVerifications } from './first-end.js';
import { migrateDeliveries } from './queue.js';

const SCHEMA = 'webhooks';
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe('the first-end rule forgets ends past its retention horizon', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
    await migrateDeliveries(sql, SCHEMA);
  });
  after(async () => {
    await sql.close();
  });

  it('pruning removes only the ends older than the horizon; a later end of a kept one is still not first', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    // Given an end recorded two days ago and one recorded a minute ago
    await firstEndsOf(sql, SCHEMA, [old], minutesAgo(2 * 24 * 60));
    await firstEndsOf(sql, SCHEMA, [recent], minutesAgo(1));
    // When ends older than a day are pruned
    const pruned = await pruneEndedVerifications(sql, SCHEMA, minutesAgo(24 * 60));
    // Then only the old one is forgotten
    assert.equal(pruned, 1);
    const { rows } = await sql.query<{ verification_id: string }>(
      `SELECT verification_id FROM ${SCHEMA}.ended_verifications`,
    );
    assert.deepEqual(
      rows.map((row) => row.verification_id),
      [recent],
    );
    assert.deepEqual([...(await firstEndsOf(sql, SCHEMA, [recent], new Date()))], []);
  });

  it('the retention must outlast the deferred verifications’ fail-after', () => {
    assert.throws(
      () =>
        webhookSettings(
          loadConfig({
            VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS: '1200000',
            VOP_WEBHOOK_ENDED_RETENTION_MS: '600000',
          }),
        ),
      /VOP_WEBHOOK_ENDED_RETENTION_MS must exceed/,
    );
    assert.equal(webhookSettings(loadConfig({})).endedRetentionMs, 86_400_000);
  });
});

describe('the dispatcher prunes ended verifications on a periodic job', () => {
  it('an end older than the retention is gone after the next run', async () => {
    const harness = await startHarness({ endedRetentionMs: 200, pruneIntervalMs: 50 });
    const receiver = await startReceiver();
    try {
      const created = await harness.api('POST', '/webhooks', 'PSP-PRUNE', {
        url: receiver.url,
        events: ['verification.success'],
        secret: 'a-receiver-secret-0123456789',
      });
      assert.equal(created.status, 201);
      const verificationId = await harness.complete('PSP-PRUNE');
      await eventually(async () => (receiver.received.length === 1 ? true : undefined));
      await eventually(
        async () => {
          const { rows } = await harness.sql.query(
            `SELECT 1 FROM ${SCHEMA}.ended_verifications WHERE verification_id = $1`,
            [verificationId],
          );
          return rows.length === 0 ? true : undefined;
        },
        { timeoutMs: 30_000, what: 'the end pruned' },
      );
    } finally {
      await receiver.close();
      await harness.close();
    }
  });
});
