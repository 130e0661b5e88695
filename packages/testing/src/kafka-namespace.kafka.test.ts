import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { eventually } from './https-client.js';
import { deleteNamespaceTopics } from './kafka-namespace.js';
import { requireEnv } from './require-env.js';

/**
 * Given topics under two namespaces on a real broker, when one namespace's topics are deleted, then
 * they are gone and the other namespace's topics are left as they were.
 */
describe('deleteNamespaceTopics: a run removes its own topics, and nobody else’s', () => {
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
  const ours = `spec-ours-${randomUUID().slice(0, 8)}.`;
  const theirs = `spec-theirs-${randomUUID().slice(0, 8)}.`;
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
      topics: [`${ours}a`, `${ours}b`, `${theirs}a`].map((topic) => ({ topic, numPartitions: 2 })),
    });
  });

  after(async () => {
    await admin.deleteTopics({ topics: [`${theirs}a`] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('deletes every topic of the namespace and leaves the others', async () => {
    assert.equal(await deleteNamespaceTopics(brokers, ours), 2);
    await eventually(
      async () => {
        const topics = await admin.listTopics();
        return namespaced(topics, ours).length === 0 ? topics : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the namespace’s topics gone' },
    );
    assert.deepEqual(namespaced(await admin.listTopics(), theirs), [`${theirs}a`]);
    // Nothing left to delete is not an error.
    assert.equal(await deleteNamespaceTopics(brokers, ours), 0);
  });
});
