import type { Admin } from 'kafkajs';
import { retryRetriable } from './retry-retriable.js';

/** Where a group starts in each partition it has no committed offset for, keyed by `partitionKey`. */
export type StartOffsets = Map<string, string>;

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/**
 * The current end of every partition the group has not committed an offset for. A consumer that
 * starts "from the end" seeks there, so what is published after `subscribe` resolves is never
 * skipped, even though Kafka would only look up the end at the consumer's first fetch.
 */
export async function endOffsetsWithoutCommit(
  admin: Admin,
  groupId: string,
  topics: string[],
): Promise<StartOffsets> {
  const committed = await retryRetriable(() => admin.fetchOffsets({ groupId, topics }));
  const starts: StartOffsets = new Map();
  for (const { topic, partitions } of committed) {
    const uncommitted = new Set(
      partitions.filter((entry) => Number(entry.offset) < 0).map((entry) => entry.partition),
    );
    if (uncommitted.size === 0) continue;
    for (const end of await retryRetriable(() => admin.fetchTopicOffsets(topic))) {
      if (uncommitted.has(end.partition)) starts.set(partitionKey(topic, end.partition), end.high);
    }
  }
  return starts;
}

/** The current end of every partition of `topics`, committed offsets or not (`startAtEnd`). */
export async function endOffsets(admin: Admin, topics: string[]): Promise<StartOffsets> {
  const starts: StartOffsets = new Map();
  for (const topic of topics)
    for (const end of await retryRetriable(() => admin.fetchTopicOffsets(topic)))
      starts.set(partitionKey(topic, end.partition), end.high);
  return starts;
}
