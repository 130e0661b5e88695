import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { eventually } from './https-client.js';
import { createTestNamespace } from './kafka-namespace.js';
import { requireEnv } from './require-env.js';

/**
 * Given topics under two namespaces on a real broker, when one namespace's topics are deleted, then
 * they are gone and the other namespace's topics are left as they were.
 */
describe('createTestNamespace: a run removes its own topics, and nobody else’s', () => {
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
  const ours = createTestNamespace('spec-ours', brokers);
  const theirs = createTestNamespace('spec-theirs', brokers);
  let admin: Admin;

  const namespaced = (topics: string[], namespace: string) =>
    topics.filter((topic) => topic.startsWith(namespace)).sort();

  before(async () => {
    admin = new Kafka({
      clientId: 'spec',
      brokers: brokers.split(','),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [`${ours.name}a`, `${ours.name}b`, `${theirs.name}a`].map((topic) => ({
        topic,
        numPartitions: 2,
      })),
    });
  });

  after(async () => {
    await theirs.drop();
    await admin.disconnect();
  });

  it('deletes every topic of the namespace and leaves the others', async () => {
    assert.match(ours.name, /^spec-ours-[0-9a-f]{8}\.$/);
    assert.equal(await ours.drop(), 2);
    await eventually(
      async () => {
        const topics = await admin.listTopics();
        return namespaced(topics, ours.name).length === 0 ? topics : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the namespace’s topics gone' },
    );
    assert.deepEqual(namespaced(await admin.listTopics(), theirs.name), [`${theirs.name}a`]);
    // Nothing left to delete is not an error.
    assert.equal(await ours.drop(), 0);
  });
});
