import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlExecutor } from '@vop/event-store';
import { createLogger } from '@vop/observability';
import { logLines } from '@vop/testing';
import { ChecksAtOtherGateways, REPORT_MS, reportCheckTimes } from './checks-at-other-gateways.js';

/** A database that is away: every statement fails as a stopped PostgreSQL's connection does. */
const away: SqlExecutor = {
  query: () =>
    Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
};

function loggedLines() {
  const { lines, destination } = logLines();
  return { lines, logger: createLogger({ service: 'spec', level: 'info', destination }) };
}

describe('single checks at other gateways, the database away', () => {
  it('given checks to report, then the reporter says once that the database is unreachable, not at every report', async () => {
    const { lines, logger } = loggedLines();
    const reports = reportCheckTimes({
      sql: away,
      schema: 'gateway',
      instanceId: 'a',
      gate: {
        highActive: () => true,
        highTimesSince: () => ({ count: 40, quantile: 5 }),
        quietHighTime: () => undefined,
        clock: () => performance.now(),
      },
      logger,
    });
    reports.start();
    await sleep(4.5 * REPORT_MS);
    await reports.stop();
    assert.equal(lines.length, 1);
    assert.match(String(lines[0]?.['msg']), /database unreachable/);
  });

  it('given an import, then it runs paced by its own gateway alone, and the failed reads are told once', async () => {
    const { lines, logger } = loggedLines();
    const atB = new ChecksAtOtherGateways({
      sql: away,
      schema: 'gateway',
      instanceId: 'b',
      logger,
    });
    const readings = await atB.watch(async (elsewhere) => {
      const seen = [elsewhere.latest()];
      await sleep(3.5 * REPORT_MS);
      seen.push(elsewhere.latest());
      return seen;
    });
    assert.deepEqual(readings, [undefined, undefined]);
    assert.equal(lines.length, 1);
    assert.match(String(lines[0]?.['msg']), /database unreachable/);
  });
});
