import { loadConfig, requireDistributed } from '@vop/config';
import { createPostgresClient } from '@vop/event-store';
import { ANALYTICS_SCHEMA } from './service.js';
import { migrateAnalyticsReadModels } from './activity/projection.js';
import { migrateGeneration, projectionGroupId, startNewGeneration } from './activity/generation.js';

/**
 * `pnpm --filter @vop/analytics rebuild` (node services/analytics/dist/rebuild.js), with the same
 * DATABASE_URL and VOP_KAFKA_NAMESPACE as the analytics processes: empties the analytics read models
 * and starts a new projection generation. Analytics processes started afterwards (restart them) read
 * every topic from Kafka offset 0 under a new consumer group and rebuild the projections.
 */
const config = loadConfig();
const { databaseUrl } = requireDistributed(config);
const sql = createPostgresClient({ connectionString: databaseUrl, max: 1 });
try {
  await migrateAnalyticsReadModels(sql, ANALYTICS_SCHEMA);
  await migrateGeneration(sql, ANALYTICS_SCHEMA);
  const generation = await startNewGeneration(sql, ANALYTICS_SCHEMA);
  process.stdout.write(
    `analytics read models emptied; generation ${generation}: restart the analytics processes, ` +
      `they replay from offset 0 as consumer group ${projectionGroupId(config.VOP_KAFKA_NAMESPACE, generation)}\n`,
  );
} finally {
  await sql.close();
}
