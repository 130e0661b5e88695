import { after, before, describe } from 'node:test';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { createTestDatabase, type TestDatabase } from '@vop/testing';
import { personalDataSpec } from './spec/personal-data-spec.js';

describe('personal data on PostgreSQL', () => {
  let database: TestDatabase;
  let sql: SqlClient;
  let otherSql: SqlClient;
  before(async () => {
    database = await createTestDatabase('vop_personal_data');
    sql = createPostgresClient({
      connectionString: database.url,
      max: 5,
      applicationName: 'personal-data-test',
    });
    otherSql = createPostgresClient({
      connectionString: database.url,
      max: 5,
      applicationName: 'personal-data-test-other',
    });
  });
  personalDataSpec({ client: () => sql, otherClient: () => otherSql });
  after(async () => {
    await sql.close();
    await otherSql.close();
    await database.drop();
  });
});
