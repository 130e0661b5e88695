import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TOPIC_PARTITIONS, topicNames } from '@vop/contracts';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { createKafkaBus, partitionFor, type Bus } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import { toOutgoingMessage } from '@vop/outbox';
import {
  createTestNamespace,
  eventually,
  germanIban,
  interceptTransactions,
  recordedAccountOpened,
  requireEnv,
  type TestNamespace,
} from '@vop/testing';
import { createAnalyticsService } from './service.js';

const ACCOUNTS = 400;

describe('the analytics projection fed from Kafka', () => {
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
  let namespace: TestNamespace;
  let sql: SqlClient;
  let bus: Bus;

  before(async () => {
    namespace = createTestNamespace('analytics-accounts', brokers);
    sql = await createPgliteClient({});
    bus = createKafkaBus({
      brokers: brokers.split(','),
      clientId: 'vop-analytics-test',
      logLevel: 'error',
    });
  });

  after(async () => {
    await bus.close();
    await sql.close();
    await namespace.drop();
  });

  it('given account events waiting on every partition, then it applies partitions fetched together in one transaction', async () => {
    const topic = topicNames(namespace.name).accountEvents;
    await bus.ensureTopics([{ name: topic, partitions: TOPIC_PARTITIONS }]);
    const ibans = Array.from({ length: ACCOUNTS }, (_, index) => germanIban(4_000 + index));
    const partitions = new Set(ibans.map((iban) => partitionFor(iban, TOPIC_PARTITIONS)));
    assert.equal(partitions.size, TOPIC_PARTITIONS, 'the events are on every partition');
    await bus.publish(
      topic,
      ibans.map((iban) => toOutgoingMessage(recordedAccountOpened(iban), iban)),
    );

    let transactions = 0;
    const service = createAnalyticsService({
      sql: interceptTransactions(sql, () => void transactions++),
      bus,
      logger: createLogger({ service: 'analytics-test', level: 'silent' }),
      version: 'test',
      namespace: namespace.name,
    });
    await service.start();
    const migrated = transactions;
    await eventually(
      async () => {
        const { rows } = await sql.query<{ count: number }>(
          'SELECT count(*)::int AS count FROM analytics.accounts',
        );
        return rows[0]?.count === ACCOUNTS ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'every account in the analytics read model' },
    );

    // One transaction a partition when each partition's batch is a delivery of its own.
    const applied = transactions - migrated;
    assert.ok(
      applied < TOPIC_PARTITIONS,
      `${applied} transactions for ${TOPIC_PARTITIONS} partitions`,
    );
    await service.stop();
  });
});
