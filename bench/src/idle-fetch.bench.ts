import { performance } from 'node:perf_hooks';
import { createKafkaBus, type Subscription } from '@vop/messaging';
import { createTestNamespace } from '@vop/testing';
import { kafkaBenchContext } from './kafka-bench-context.js';

/**
 * What an idle Kafka consumer costs its process: --consumers groups, each reading --topics empty topics
 * of 8 partitions (analytics reads nine), through the Kafka bus on a real broker, long-polling every
 * --fetch-wait ms. Prints this process's CPU (every thread, `process.cpuUsage`) over --seconds with the
 * bus connected and no consumer, then with the consumers, and the difference per fetch (an empty fetch
 * is answered when its wait ends, so each consumer fetches at most once a wait). The part of bar 5a of
 * issue 45 (docs/performance.md, the idle deployment) that grows with consumers and partitions.
 * Usage: node bench/dist/idle-fetch.bench.js [--consumers 1] [--topics 9] [--fetch-wait 100] [--seconds 20]
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: number): number =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const CONSUMERS = option('--consumers', 1);
const TOPICS = option('--topics', 9);
const FETCH_WAIT_MS = option('--fetch-wait', 100);
const SECONDS = option('--seconds', 20);
const PARTITIONS = 8;

const { brokers, footer } = kafkaBenchContext();

/** This process's CPU, in ms, over the next --seconds. */
async function cpuOver(): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}

const namespace = createTestNamespace('bench-idle-fetch', brokers);
const bus = createKafkaBus({
  brokers: brokers.split(','),
  clientId: 'vop-bench-idle-fetch',
  logLevel: 'error',
  fetchWaitMs: FETCH_WAIT_MS,
});
const subscriptions: Subscription[] = [];
try {
  const topics = Array.from({ length: TOPICS }, (_, index) => `${namespace.name}idle-${index}`);
  await bus.ensureTopics(topics.map((name) => ({ name, partitions: PARTITIONS })));
  // Start-up's garbage is collected in the first seconds: settle before the bus alone is measured.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const alone = await cpuOver();

  for (let index = 0; index < CONSUMERS; index += 1)
    subscriptions.push(
      await bus.subscribe({
        groupId: `${namespace.name}idle-${index}`,
        topics,
        batchHandler: () => {
          throw new Error('an empty topic delivered a message');
        },
      }),
    );
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const started = performance.now();
  const consuming = await cpuOver();
  const fetches = (CONSUMERS * (performance.now() - started)) / FETCH_WAIT_MS;

  const share = (ms: number) => `${((100 * ms) / (SECONDS * 1000)).toFixed(2)} %`;
  process.stdout.write(
    [
      '',
      `Idle Kafka consumers: ${CONSUMERS} × ${TOPICS} topics × ${PARTITIONS} partitions, fetch wait ${FETCH_WAIT_MS} ms, ${SECONDS} s each`,
      '| bus alone: CPU | with the consumers: CPU | difference | per fetch (at most one a wait): µs | per partition and fetch: µs |',
      '|---:|---:|---:|---:|---:|',
      `| ${share(alone)} | ${share(consuming)} | ${share(consuming - alone)} | ${((1000 * (consuming - alone)) / fetches).toFixed(0)} | ${((1000 * (consuming - alone)) / fetches / (TOPICS * PARTITIONS)).toFixed(1)} |`,
      footer(),
      '',
    ].join('\n'),
  );
} finally {
  for (const subscription of subscriptions) await subscription.close();
  await bus.close();
  await namespace.drop();
}
