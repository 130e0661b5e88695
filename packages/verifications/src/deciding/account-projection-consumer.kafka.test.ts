import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TOPIC_PARTITIONS, topicNames } from '@vop/contracts';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { createKafkaBus, partitionFor, type Bus } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import {
  createTestNamespace,
  eventually,
  germanIban,
  requireEnv,
  type TestNamespace,
} from '@vop/testing';
import { accountOpened, countingTransactions } from './account-copy-spec-helpers.js';
import { AccountProjection } from './account-projection-consumer.js';
import { findAccountsByIbans } from './account-projection.js';

const SCHEMA = 'copy_on_kafka';
const ACCOUNTS = 400;

describe('a copy of the accounts fed from Kafka (AccountProjection)', () => {
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
  let namespace: TestNamespace;
  let sql: SqlClient;
  let bus: Bus;

  before(async () => {
    namespace = createTestNamespace('account-copy', brokers);
    sql = await createPgliteClient({});
    bus = createKafkaBus({
      brokers: brokers.split(','),
      clientId: 'vop-account-copy-test',
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
    const ibans = Array.from({ length: ACCOUNTS }, (_, index) => germanIban(2_000 + index));
    const partitions = new Set(ibans.map((iban) => partitionFor(iban, TOPIC_PARTITIONS)));
    assert.equal(partitions.size, TOPIC_PARTITIONS, 'the events are on every partition');
    await bus.publish(
      topic,
      ibans.map((iban) => accountOpened(iban)),
    );
    const counted = countingTransactions(sql);
    const projection = new AccountProjection({
      sql: counted.sql,
      bus,
      logger: createLogger({ service: 'copy-test', level: 'silent' }),
      schema: SCHEMA,
      groupId: `${namespace.name}copy-accounts`,
      topic,
    });
    await projection.migrate();

    const subscription = await projection.subscribe();
    await eventually(
      async () =>
        (await findAccountsByIbans(sql, SCHEMA, ibans)).size === ACCOUNTS ? true : undefined,
      { timeoutMs: 30_000, what: 'every account in the copy' },
    );

    // One transaction a partition when each partition's batch is a delivery of its own.
    assert.ok(
      counted.count() < TOPIC_PARTITIONS,
      `${counted.count()} transactions for ${TOPIC_PARTITIONS} partitions`,
    );
    await subscription.close();
    await projection.stop();
  });
});
