import { createPostgresClient } from '@vop/event-store';
import { createTestDatabase } from '@vop/testing';
import { latestLoadSpec } from './latest-load-spec.js';

latestLoadSpec('PostgreSQL', async () => {
  const database = await createTestDatabase('latest_load');
  const first = createPostgresClient({ connectionString: database.url, max: 2 });
  const second = createPostgresClient({ connectionString: database.url, max: 2 });
  return {
    first,
    second,
    async close() {
      await Promise.all([first.close(), second.close()]);
      await database.drop();
    },
  };
});
