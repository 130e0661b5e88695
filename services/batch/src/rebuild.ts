import path from 'node:path';
import { loadConfig } from '@vop/config';
import {
  createPgliteClient,
  createPostgresClient,
  EventStore,
  type SqlClient,
} from '@vop/event-store';
import { rebuildBatchReadModels } from './batches/rebuild.js';
import { BATCH_SCHEMA } from './service.js';

/**
 * `pnpm --filter @vop/batch rebuild` (node services/batch/dist/rebuild.js): with the batch processes
 * stopped, empties the batch read models (batches, entries, progress, results) and projects them again
 * from the batch service's own events. Distributed: the batch service's DATABASE_URL; without one, the
 * embedded data folder (VOP_DATA_DIR, the embedded process stopped: PGlite holds its folder alone).
 */
const config = loadConfig();
const sql: SqlClient = config.DATABASE_URL
  ? createPostgresClient({ connectionString: config.DATABASE_URL, max: 1 })
  : await createPgliteClient({ dataDir: path.join(config.VOP_DATA_DIR, 'pglite') });
try {
  const { batches, answers } = await rebuildBatchReadModels(
    new EventStore(sql, { schema: BATCH_SCHEMA }),
  );
  process.stdout.write(
    `batch read models rebuilt from the batch events: ${batches} batches, ${answers} entries answered\n`,
  );
} finally {
  await sql.close();
}
