import { parseVerificationEnd } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import type { Logger } from '@vop/observability';
import { logHandlerError, parseEnvelope } from '@vop/outbox';
import { firstEnds, recordVerificationEnds } from './read-model.js';
import type { CompletionWaiters } from './waiters.js';
import { WakeupsWhileShared } from './wakeups-while-shared.js';

/** This instance's own group on the completions topic (subscribed only while it is needed, below). */
export function waitersGroupId(groupPrefix: string, instanceId: string): string {
  return `${groupPrefix}gateway-waiters-${instanceId}`;
}

/**
 * Two readers of the completions topic (completions and failures, the first end of a verification
 * wins): the shared, durable results read model (one group for all gateway instances, each event
 * applied once), which wakes the callers waiting here for the ends it applies, and this instance's own
 * group that wakes its callers whose ends another instance applies: subscribed only while the results
 * group leaves partitions to other instances (`WakeupsWhileShared`).
 */
export async function subscribeToCompletions(options: {
  bus: Bus;
  sql: SqlClient;
  schema: string;
  instanceId: string;
  waiters: CompletionWaiters;
  topic: string;
  groupPrefix: string;
  logger: Logger;
}): Promise<Subscription[]> {
  const { bus, sql, schema, instanceId, waiters, topic, groupPrefix, logger } = options;
  const wakeups = new WakeupsWhileShared(
    () =>
      bus.subscribe({
        groupId: waitersGroupId(groupPrefix, instanceId),
        onHandlerError: logHandlerError(logger, 'verification-waiters'),
        topics: [topic],
        // What was published before is skipped: those ends were applied by this instance's results
        // group (which woke their callers) or are found by the waiters' sweep of the read model.
        startAtEnd: true,
        partitionsConsumedConcurrently: 4,
        batchHandler: async (messages) => {
          for (const message of messages) {
            // Keyed by verification id: the ends of other instances' callers (and of callers the
            // results read model already woke here) are skipped before anything is decoded.
            if (!waiters.isWaiting(message.key)) continue;
            const envelope = parseEnvelope(message);
            waiters.notify(parseVerificationEnd(envelope.type, envelope.data));
          }
        },
      }),
    logger,
  );
  const results = await bus.subscribe({
    groupId: `${groupPrefix}gateway-verification-results`,
    onHandlerError: logHandlerError(logger, 'verification-results'),
    topics: [topic],
    fromBeginning: true,
    partitionsConsumedConcurrently: 4,
    onHoldsEveryPartition: (holdsEvery) => wakeups.resultsShared(!holdsEvery),
    // One statement for the small batches of several partitions (completions spread over all of them).
    mergePartitions: true,
    // Idempotent by construction: a row takes only its first end (`status = 'PENDING'`), so a
    // redelivered end changes nothing. No processed-ids bookkeeping, hence no transaction: one
    // autocommitted statement per delivery instead of BEGIN, record ids, update, COMMIT.
    batchHandler: async (messages) => {
      const ends = firstEnds(
        messages
          .map(parseEnvelope)
          .map((envelope) => parseVerificationEnd(envelope.type, envelope.data)),
      );
      if (ends.length === 0) return;
      await recordVerificationEnds(sql, schema, ends);
      for (const end of ends) waiters.notify(end);
    },
  });
  // Subscribed unless the results group has said by now that it holds every partition.
  await wakeups.start();
  // The waiters first: the results group tells it lost its partitions when it stops, and a closed
  // WakeupsWhileShared does not subscribe again.
  return [{ close: () => wakeups.close() }, results];
}
