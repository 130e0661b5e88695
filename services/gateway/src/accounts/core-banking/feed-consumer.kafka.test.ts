import { createPostgresClient } from '@vop/event-store';
import { createKafkaBus } from '@vop/messaging';
import { createTestDatabase, requireEnv } from '@vop/testing';
import { coreBankingFeedSpec } from './feed-spec.js';

coreBankingFeedSpec('PostgreSQL and Kafka', async () => {
  const database = await createTestDatabase('core_banking_feed');
  const sql = createPostgresClient({ connectionString: database.url, max: 4 });
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS').split(',');
  const bus = createKafkaBus({ brokers, clientId: 'core-banking-feed-test', logLevel: 'error' });
  return {
    sql,
    bus,
    close: async () => {
      await bus.close();
      await sql.close();
      await database.drop();
    },
  };
});
