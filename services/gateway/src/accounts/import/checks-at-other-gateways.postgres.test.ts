import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HighTimes } from '@vop/messaging';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { createLogger } from '@vop/observability';
import { createTestDatabase, eventually } from '@vop/testing';
import {
  ChecksAtOtherGateways,
  migrateCheckTimesOfGateways,
  REPORT_MS,
  reportCheckTimes,
} from './checks-at-other-gateways.js';
import type { ChecksElsewhere, SingleCheckTimes } from './import-pacer.js';

const logger = createLogger({ service: 'spec', level: 'silent' });
const schema = 'gateway';

/** A gateway's single checks as its gate tells them: each report window, `count` checks of `ms`. */
function gateOf(times: { count: number; ms: number }): SingleCheckTimes {
  return {
    highActive: () => times.count > 0,
    highTimesSince: (): HighTimes => ({ count: times.count, quantile: times.ms }),
    quietHighTime: () => undefined,
    clock: () => performance.now(),
  };
}

describe('single checks at other gateways (PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: SqlClient;

  before(async () => {
    database = await createTestDatabase('checks_at_other_gateways');
    sql = createPostgresClient({ connectionString: database.url, max: 4 });
    await sql.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await migrateCheckTimesOfGateways(sql, schema);
  });

  after(async () => {
    await sql.close();
    await database.drop();
  });

  const reportsOf = (instanceId: string, checks: { count: number; ms: number }) =>
    reportCheckTimes({ sql, schema, instanceId, gate: gateOf(checks), logger });

  const rowOf = async (instanceId: string) =>
    (
      await sql.query<{ checks: number; watched_ms: number; quiet_ms: number | null }>(
        `SELECT checks, watched_ms, quiet_ms FROM ${schema}.gateway_check_times WHERE instance_id = $1`,
        [instanceId],
      )
    ).rows[0];

  it('given checks at gateway A slowed by an import at gateway B, then B reads how much slower than quiet they are', async () => {
    const checksAtA = { count: 40, ms: 5 };
    const reports = reportsOf('a', checksAtA);
    reports.start();
    try {
      // A's quiet time is learnt from its reports while no import runs anywhere.
      await eventually(async () => ((await rowOf('a'))?.quiet_ms === 5 ? true : undefined), {
        timeoutMs: 15_000,
        what: "A's quiet time",
      });
      const atB = new ChecksAtOtherGateways({ sql, schema, instanceId: 'b', logger });
      const seen = await atB.watch(async (elsewhere: ChecksElsewhere) => {
        checksAtA.ms = 40;
        // More of A's reports than it keeps for its quiet time: none of them may become it.
        await sleep(12 * REPORT_MS);
        return elsewhere.latest();
      });
      assert.equal(seen?.active, true);
      assert.equal(seen?.slowdown, 8);
      assert.equal((await rowOf('a'))?.quiet_ms, 5);
    } finally {
      await reports.stop();
    }
  });

  it('given a gateway that serves no checks, then it writes nothing', async () => {
    const reports = reportsOf('idle', { count: 0, ms: 0 });
    reports.start();
    await sleep(3 * REPORT_MS);
    await reports.stop();
    assert.equal(await rowOf('idle'), undefined);
  });

  it('given checks that stopped at the other gateway, then the importing gateway reads none after a while', async () => {
    const checksAtC = { count: 40, ms: 5 };
    const reports = reportsOf('c', checksAtC);
    reports.start();
    const atD = new ChecksAtOtherGateways({ sql, schema, instanceId: 'd', logger });
    try {
      await atD.watch(async (elsewhere) => {
        await eventually(async () => (elsewhere.latest()?.active === true ? true : undefined), {
          what: 'checks at C',
        });
        await reports.stop();
        await eventually(async () => (elsewhere.latest()?.active === true ? undefined : true), {
          what: 'no checks at C',
        });
      });
    } finally {
      await reports.stop();
    }
    // The import over, D is no longer marked as importing.
    const { rows } = await sql.query<{ importing: boolean }>(
      `SELECT importing_until IS NOT NULL AS importing FROM ${schema}.gateway_check_times
        WHERE instance_id = 'd'`,
    );
    assert.deepEqual(rows, [{ importing: false }]);
  });
});
