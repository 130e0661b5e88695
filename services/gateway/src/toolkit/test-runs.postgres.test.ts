import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { createTestDatabase } from '@vop/testing';
import { testRunsSpec } from './test-runs-spec.js';

testRunsSpec('PostgreSQL', async (): Promise<SqlClient> => {
  const database = await createTestDatabase('test_runs');
  const sql = createPostgresClient({ connectionString: database.url, max: 4 });
  const close = sql.close.bind(sql);
  return Object.assign(sql, {
    close: async () => {
      await close();
      await database.drop();
    },
  });
});
