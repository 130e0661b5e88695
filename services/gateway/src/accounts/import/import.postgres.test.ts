import { createPostgresClient } from '@vop/event-store';
import { createTestDatabase } from '@vop/testing';
import { accountImportSpec } from './import-spec.js';

accountImportSpec('PostgreSQL', async () => {
  const database = await createTestDatabase('account_import');
  const sql = createPostgresClient({ connectionString: database.url, max: 4 });
  return {
    sql,
    close: async () => {
      await sql.close();
      await database.drop();
    },
  };
});
