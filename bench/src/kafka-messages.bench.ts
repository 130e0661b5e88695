import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createKafkaBus, type IncomingMessage, type OutgoingMessage } from '@vop/messaging';
import { parseEnvelope, toOutgoingMessage } from '@vop/outbox';
import { createTestNamespace, germanIban, recordedAccountOpened } from '@vop/testing';
import { kafkaBenchContext } from './kafka-bench-context.js';

/**
 * What a message costs the process that publishes it and the process that consumes it, through the
 * Kafka bus on a real broker: account events as the gateway's relay publishes them
 * (`toOutgoingMessage`: the envelope as JSON, six headers), published in publications of --batch, then
 * consumed by one group in deliveries of up to 500 (as the account copies take them) and parsed
 * (`parseEnvelope`). Prints this process's CPU per message (every thread, `process.cpuUsage`) for each
 * side; the broker is not counted. The fixed cost every distributed flow pays per message
 * (docs/performance.md, the kafkajs patch).
 * Usage: node bench/dist/kafka-messages.bench.js [--messages 200000] [--batch 1000] [--rounds 3]
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: number): number =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const MESSAGES = option('--messages', 200_000);
const BATCH = option('--batch', 1_000);
const ROUNDS = option('--rounds', 3);
const PARTITIONS = 8;

const { brokers, footer } = kafkaBenchContext();

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function relayedAccountEvent(index: number): OutgoingMessage {
  const iban = germanIban(index);
  const event = recordedAccountOpened(iban);
  event.metadata = {
    correlationId: randomUUID(),
    traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
  };
  return toOutgoingMessage(event, iban);
}

const namespace = createTestNamespace('bench-kafka-messages', brokers);
const bus = createKafkaBus({
  brokers: brokers.split(','),
  clientId: 'vop-bench-kafka-messages',
  logLevel: 'error',
});
const rows: string[] = [];
try {
  const messages = Array.from({ length: MESSAGES }, (_, index) => relayedAccountEvent(index));
  const bytes = messages.reduce((sum, message) => sum + message.value.length, 0) / MESSAGES;
  for (let round = 1; round <= ROUNDS; round += 1) {
    const topic = `${namespace.name}account-events-${round}`;
    await bus.ensureTopics([{ name: topic, partitions: PARTITIONS }]);

    const publishCpu = cpuMs();
    const publishStart = performance.now();
    for (let start = 0; start < MESSAGES; start += BATCH)
      await bus.publish(topic, messages.slice(start, start + BATCH));
    const published = { cpu: cpuMs() - publishCpu, wall: performance.now() - publishStart };

    let consumed = 0;
    let parsed = 0;
    let done: () => void = () => undefined;
    const allConsumed = new Promise<void>((resolve) => {
      done = resolve;
    });
    const consumeCpu = cpuMs();
    const consumeStart = performance.now();
    const subscription = await bus.subscribe({
      groupId: `${namespace.name}bench-${round}`,
      topics: [topic],
      maxBatchSize: 500,
      batchHandler: async (delivered: IncomingMessage[]) => {
        for (const message of delivered)
          if (parseEnvelope(message).type === 'AccountOpened') parsed += 1;
        consumed += delivered.length;
        if (consumed >= MESSAGES) done();
      },
    });
    await allConsumed;
    const consumedIn = { cpu: cpuMs() - consumeCpu, wall: performance.now() - consumeStart };
    await subscription.close();
    if (parsed !== MESSAGES) throw new Error(`parsed ${parsed} of ${MESSAGES}`);

    const perMessage = (ms: number) => ((1000 * ms) / MESSAGES).toFixed(2);
    const rate = (ms: number) => Math.round((MESSAGES * 1000) / ms);
    rows.push(
      `| ${round} | ${MESSAGES} | ${perMessage(published.cpu)} | ${rate(published.wall)} | ${perMessage(consumedIn.cpu)} | ${rate(consumedIn.wall)} |`,
    );
  }
  process.stdout.write(
    [
      '',
      `Kafka messages: account events as the relay publishes them (${Math.round(bytes)} bytes of JSON, six headers), ${PARTITIONS} partitions, publications of ${BATCH}`,
      '| round | messages | publish: CPU µs/message | messages/s | consume and parse: CPU µs/message | messages/s |',
      '|---:|---:|---:|---:|---:|---:|',
      ...rows,
      footer(),
      '',
    ].join('\n'),
  );
} finally {
  await bus.close();
  await namespace.drop();
}
