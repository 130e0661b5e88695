import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';

/** One run's topics on a shared broker: every service of the run gets `name` as VOP_KAFKA_NAMESPACE. */
export interface TestNamespace {
  /** The topics' prefix, unique to the run (`<prefix>-<8 hex>.`). */
  name: string;
  /**
   * Deletes the namespace's topics once the run's processes are stopped, and says how many. A run
   * that leaves its ~100 partitions behind costs the local broker open files for good: after some 180
   * benchmark runs it refused connections with "Too many open files" and stopped answering
   * (bench/RESULTS.md §1). Best effort: a cleanup that fails must not fail the run.
   */
  drop(): Promise<number>;
}

/** A namespace of its own for one spec or benchmark run, the Kafka twin of createTestDatabase. */
export function createTestNamespace(prefix: string, brokers: string): TestNamespace {
  const name = `${prefix}-${randomUUID().slice(0, 8)}.`;
  return { name, drop: () => deleteTopicsUnder(brokers, name) };
}

async function deleteTopicsUnder(brokers: string, namespace: string): Promise<number> {
  const admin = new Kafka({
    clientId: 'vop-namespace-cleanup',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 2 },
  }).admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(namespace));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
    return topics.length;
  } catch {
    return 0;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
