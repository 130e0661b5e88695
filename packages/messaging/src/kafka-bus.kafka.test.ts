import { busContract } from './bus-contract.js';
import { createKafkaBus } from './kafka/kafka-bus.js';

const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
if (!brokers) {
  throw new Error(
    'VOP_TEST_KAFKA_BROKERS is not set: start a broker with `bash infra/local/kafka.sh start` and set ' +
      'VOP_TEST_KAFKA_BROKERS=$(bash infra/local/kafka.sh brokers)',
  );
}

busContract(
  'kafka',
  () =>
    createKafkaBus({
      brokers: brokers.split(','),
      clientId: 'vop-messaging-contract-test',
      logLevel: 'error',
    }),
  { waitTimeoutMs: 30_000 },
);
