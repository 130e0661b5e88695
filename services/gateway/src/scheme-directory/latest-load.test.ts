import { createPgliteClient } from '@vop/event-store';
import { latestLoadSpec } from './latest-load-spec.js';

latestLoadSpec('PGlite', async () => {
  const sql = await createPgliteClient({});
  return { first: sql, second: sql, close: () => sql.close() };
});
