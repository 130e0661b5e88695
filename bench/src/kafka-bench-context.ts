import { spanEachMessage } from '@vop/messaging';
import { runContext } from './run-context.js';

/**
 * What a bench of the Kafka bus starts with: the broker from VOP_TEST_KAFKA_BROKERS, no span per
 * message (as in a service that exports no traces, packages/lifecycle `startServiceTracing`), and the
 * run's header printed.
 */
export function kafkaBenchContext(): { brokers: string; footer: () => string } {
  const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
  if (!brokers) throw new Error('needs VOP_TEST_KAFKA_BROKERS (bash infra/local/up.sh)');
  spanEachMessage(false);
  const context = runContext();
  process.stdout.write(`${context.header}\n`);
  return { brokers, footer: context.footer };
}
