import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventStore, type SqlClient } from '@vop/event-store';
import { createLogger } from '@vop/observability';
import { eventually } from '@vop/testing';
import { LatestLoad } from './latest-load.js';

interface Table {
  version: number;
  rows: string[];
}

/** Two gateway instances' clients of one database (the same client where notifications stay in process). */
export interface TwoInstances {
  first: SqlClient;
  second: SqlClient;
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

function latestLoad(sql: SqlClient): LatestLoad<Table, Table> {
  return new LatestLoad<Table, Table>({
    store: new EventStore(sql, { schema: 'latest_load_spec' }),
    stream: 'some-table',
    name: 'some table',
    parse: (data) => data as Table,
    hold: (data) => data,
    logger: createLogger({ service: 'spec', level: 'silent' }),
    // Only a notification can bring the other instance the load within the test.
    refreshMs: HOUR_MS,
  });
}

export function latestLoadSpec(label: string, open: () => Promise<TwoInstances>): void {
  describe(`an admin-loaded table held by every instance (${label})`, () => {
    it('given two instances that poll once an hour, when one loads a table, then the other holds it at once', async () => {
      const instances = await open();
      await new EventStore(instances.first, { schema: 'latest_load_spec' }).migrate();
      const loading = latestLoad(instances.first);
      const serving = latestLoad(instances.second);
      await loading.start();
      await serving.start();
      try {
        await loading.load((version) => [
          { type: 'SomeTableLoaded', data: { version: version + 1, rows: ['a'] } },
        ]);

        const held = await eventually(async () => serving.current(), {
          what: 'the other instance holding the load',
        });
        assert.deepEqual(held, { version: 1, rows: ['a'] });
      } finally {
        await serving.stop();
        await loading.stop();
        await instances.close();
      }
    });
  });
}
