import { Kafka, logLevel } from 'kafkajs';

/**
 * Deletes the topics of one run's namespace (VOP_KAFKA_NAMESPACE) once its processes are stopped. A
 * run that leaves its ~100 partitions behind costs the local broker open files for good: after some
 * 180 benchmark runs it refused connections with "Too many open files" and stopped answering
 * (bench/RESULTS.md §1, 2026-11-28 17:10). Best effort: a cleanup that fails must not fail the run.
 */
export async function deleteNamespaceTopics(brokers: string, namespace: string): Promise<number> {
  if (namespace.length === 0) throw new Error('deleteNamespaceTopics needs a namespace');
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
