import { createPgliteClient } from '@vop/event-store';
import { accountImportSpec } from './import-spec.js';

accountImportSpec('PGlite', async () => {
  const sql = await createPgliteClient({});
  return { sql, close: () => sql.close() };
});
