import { describe } from 'node:test';
import { createKafkaBus } from '@vop/messaging';
import { domesticAccountsRebuildSpec } from './rebuild-spec.js';

const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
if (!brokers)
  throw new Error('VOP_TEST_KAFKA_BROKERS is not set: start a broker with infra/local/kafka.sh');

describe('domestic accounts rebuild (Kafka)', () => {
  domesticAccountsRebuildSpec(() =>
    createKafkaBus({ brokers: brokers.split(','), clientId: 'vop-batch-rebuild-test' }),
  );
});
