import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { markProcessed, migrateInbox } from '@vop/outbox';
import { germanIban } from '@vop/testing';
import { runEmbedded, schemeRequest } from './fixtures.js';

/** The consumers that only read a check keep no processed ids (docs/performance.md). */
const RETIRED = ['analytics', 'webhooks'];

describe('an embedded data folder an older release wrote', () => {
  it('given the processed ids analytics and the webhook dispatcher kept, when the service starts on it, then they are dropped and checks are served', async () => {
    const first = await runEmbedded({ inMemory: false });
    for (const schema of RETIRED) {
      await migrateInbox(first.service.sql, schema);
      await markProcessed(first.service.sql, schema, 'older-release', [randomUUID()]);
    }
    await first.stop({ keepData: true });

    const second = await runEmbedded({ dataDir: first.dataDir, inMemory: false });
    try {
      for (const schema of RETIRED) {
        const { rows } = await second.service.sql.query<{ table: string | null }>(
          `SELECT to_regclass($1)::text AS table`,
          [`${schema}.processed_events`],
        );
        assert.equal(rows[0]?.table, null, `${schema}.processed_events`);
      }
      const check = await second.client.post(
        '/vop/verify',
        schemeRequest('Nobody Known', germanIban(9)),
      );
      assert.equal(check.status, 200, JSON.stringify(check.body));
    } finally {
      await second.stop();
    }
  });
});
