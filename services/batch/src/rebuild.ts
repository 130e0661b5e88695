import path from 'node:path';
import { loadConfig } from '@vop/config';
import { topicNames } from '@vop/contracts';
import {
  createPgliteClient,
  createPostgresClient,
  EventStore,
  type SqlClient,
} from '@vop/event-store';
import { kafkaValueCodec } from '@vop/lifecycle';
import { createKafkaBus } from '@vop/messaging';
import { rebuildBatchReadModels } from './batches/rebuild.js';
import { rebuildDomesticAccounts } from './domestic-accounts/rebuild.js';
import { BATCH_SCHEMA } from './service.js';

/**
 * `pnpm --filter @vop/batch rebuild` (node services/batch/dist/rebuild.js): with the batch processes
 * stopped, empties the batch read models (batches, entries, progress, results) and projects them again
 * from the batch service's own events; distributed, also the domestic accounts read model, from the
 * account events on Kafka (offset 0 up to their end). Distributed: the batch service's DATABASE_URL,
 * KAFKA_BROKERS and VOP_KAFKA_NAMESPACE; without a DATABASE_URL, the embedded data folder
 * (VOP_DATA_DIR, the embedded process stopped: PGlite holds its folder alone), whose in-process bus
 * kept no account events to replay.
 */
const config = loadConfig();
const brokers = config.KAFKA_BROKERS ?? [];
if (config.DATABASE_URL && brokers.length === 0) {
  process.stderr.write('KAFKA_BROKERS: required to rebuild the domestic accounts read model\n');
  process.exit(2);
}
const sql: SqlClient = config.DATABASE_URL
  ? createPostgresClient({ connectionString: config.DATABASE_URL, max: 2 })
  : await createPgliteClient({ dataDir: path.join(config.VOP_DATA_DIR, 'pglite') });
try {
  const { batches, answers } = await rebuildBatchReadModels(
    new EventStore(sql, { schema: BATCH_SCHEMA }),
  );
  process.stdout.write(
    `batch read models rebuilt from the batch events: ${batches} batches, ${answers} entries answered\n`,
  );
  if (config.DATABASE_URL) {
    const namespace = config.VOP_KAFKA_NAMESPACE;
    const bus = createKafkaBus({
      brokers,
      clientId: `${config.KAFKA_CLIENT_ID}-batch-rebuild`,
      ...kafkaValueCodec(config),
    });
    try {
      // A group of its own, used once; Kafka forgets it after offsets.retention.minutes.
      const { events } = await rebuildDomesticAccounts({
        sql,
        schema: BATCH_SCHEMA,
        bus,
        topic: topicNames(namespace).accountEvents,
        groupId: `${namespace}batch-domestic-accounts-rebuild-${Date.now()}`,
      });
      process.stdout.write(`domestic accounts read model rebuilt from ${events} account events\n`);
    } finally {
      await bus.close();
    }
  } else {
    process.stdout.write(
      'domestic accounts read model kept: the embedded run keeps no account events to replay\n',
    );
  }
} finally {
  await sql.close();
}
