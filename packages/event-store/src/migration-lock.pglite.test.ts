import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { schemaMigration } from './migration-lock.js';
import { createPgliteClient } from './pglite-client.js';
import type { SqlClient } from './types.js';

describe('schemaMigration on PGlite', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
  });
  after(() => sql.close());

  const migrateNotes = schemaMigration((schema) => [
    `CREATE TABLE IF NOT EXISTS ${schema}.notes (id integer PRIMARY KEY)`,
    `ALTER TABLE ${schema}.notes ADD COLUMN IF NOT EXISTS body text`,
  ]);

  it('given a missing schema, when migrated twice in two schemas, then each has its own tables', async () => {
    await migrateNotes(sql, 'first_service');
    await migrateNotes(sql, 'first_service');
    await migrateNotes(sql, 'second_service');

    const { rows } = await sql.query<{ table_schema: string; column_name: string }>(
      `SELECT table_schema, column_name FROM information_schema.columns
        WHERE table_name = 'notes' ORDER BY table_schema, ordinal_position`,
    );
    assert.deepEqual(
      rows.map((row) => `${row.table_schema}.${row.column_name}`),
      ['first_service.id', 'first_service.body', 'second_service.id', 'second_service.body'],
    );
  });
});
