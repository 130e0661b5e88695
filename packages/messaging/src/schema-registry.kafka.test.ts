import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { createKafkaBus } from './kafka/kafka-bus.js';
import { schemaRegistryCodec } from './kafka/value-codec.js';
import type { Bus, IncomingMessage } from './types.js';

function required(name: string, how: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: ${how}`);
  return value;
}
const brokers = required('VOP_TEST_KAFKA_BROKERS', 'bash infra/local/kafka.sh start').split(',');
const registryUrl = required(
  'VOP_TEST_SCHEMA_REGISTRY_URL',
  'start one with `bash infra/local/schema-registry.sh start` and set it to its `url`',
);

const ORDER_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
  required: ['orderId', 'amount'],
  additionalProperties: false,
};

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Kafka bus with a Confluent-compatible schema registry (real broker, real registry)', () => {
  const topic = `registry-test-${randomUUID().slice(0, 8)}`;
  let encoding: Bus;
  let plain: Bus;
  const received: IncomingMessage[] = [];
  const raw: Buffer[] = [];
  const kafka = new Kafka({ clientId: 'registry-test-raw', brokers, logLevel: logLevel.NOTHING });
  const rawConsumer = kafka.consumer({ groupId: `raw-${topic}` });

  before(async () => {
    const codec = schemaRegistryCodec({ url: registryUrl, schemaFor: () => ORDER_SCHEMA });
    encoding = createKafkaBus({ brokers, clientId: 'registry-test', valueCodec: codec });
    plain = createKafkaBus({ brokers, clientId: 'registry-test-plain' });
    await encoding.ensureTopics([{ name: topic, partitions: 1 }]);
    await encoding.subscribe({
      groupId: `decoded-${topic}`,
      topics: [topic],
      handler: async (message) => void received.push(message),
    });
    await rawConsumer.connect();
    await rawConsumer.subscribe({ topic, fromBeginning: true });
    await rawConsumer.run({
      eachMessage: async ({ message }) => void (message.value && raw.push(message.value)),
    });
  });

  after(async () => {
    await rawConsumer.disconnect();
    await encoding.close();
    await plain.close();
  });

  it('registers the topic schema, writes the Confluent wire format and reads the JSON back', async () => {
    const value = JSON.stringify({ orderId: 'o-1', amount: 12.5 });
    await encoding.publish(topic, [{ key: 'o-1', value }]);
    const message = await waitFor(() => received[0], 'the decoded message');
    assert.deepEqual(JSON.parse(message.value), { orderId: 'o-1', amount: 12.5 });

    const latest = (await (
      await fetch(`${registryUrl}/subjects/${topic}-value/versions/latest`)
    ).json()) as { id: number; schemaType: string };
    assert.equal(latest.schemaType, 'JSON');
    const wire = await waitFor(() => raw[0], 'the raw message');
    assert.equal(wire[0], 0, 'magic byte');
    assert.equal(wire.readInt32BE(1), latest.id, 'the registered schema id');
    assert.deepEqual(JSON.parse(wire.subarray(5).toString('utf8')), JSON.parse(value));
  });

  it('refuses to publish a value its topic schema does not allow', async () => {
    await assert.rejects(
      encoding.publish(topic, [{ key: 'o-2', value: JSON.stringify({ orderId: 2 }) }]),
    );
  });

  it('still reads plain JSON values published without a registry', async () => {
    const value = JSON.stringify({ orderId: 'o-3', amount: 1 });
    await plain.publish(topic, [{ key: 'o-3', value }]);
    const message = await waitFor(
      () => received.find((candidate) => candidate.key === 'o-3'),
      'the plain message',
    );
    assert.equal(message.value, value);
  });
});
