import { parseVerificationEnd } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import type { Logger } from '@vop/observability';
import { idempotentBatchHandler, logHandlerError } from '@vop/outbox';
import type { BatchCommands } from './command-handler.js';
import { answerOf } from './status-read-model.js';

/** The progress consumer's group (its lag is the consumer_lag metric's). */
export const progressGroupId = (groupPrefix: string): string => `${groupPrefix}batch-progress`;

/**
 * Batch progress from the batch entries' completions topic (`vop.verification-completed.batch.v1`): the first end of each batch entry (a completion, or a
 * failure) answers it once (the inbox records the message ids in the same transaction), and the
 * batch whose last entry it was completes there too (BatchCompleted, published by the outbox relay).
 */
export async function subscribeToBatchProgress(options: {
  bus: Bus;
  sql: SqlClient;
  schema: string;
  topic: string;
  groupPrefix: string;
  commands: BatchCommands;
  logger: Logger;
  onAnswered?: (count: number) => void;
}): Promise<Subscription> {
  const { bus, sql, schema, commands, logger } = options;
  const progress = idempotentBatchHandler({
    sql,
    schema,
    consumer: 'batch-progress',
    applyBatch: async (envelopes, tx) => {
      const answers = envelopes
        .map((envelope) => answerOf(parseVerificationEnd(envelope.type, envelope.data)))
        .filter((answer) => answer !== undefined);
      if (answers.length === 0) return;
      const answered = await commands.answerEntries(tx, answers);
      options.onAnswered?.(answered);
    },
  });
  return bus.subscribe({
    groupId: progressGroupId(options.groupPrefix),
    onHandlerError: logHandlerError(logger, 'batch-progress'),
    topics: [options.topic],
    fromBeginning: true,
    partitionsConsumedConcurrently: 4,
    // One transaction at a time for what the partitions fetched: every answer of a batch updates its one
    // `batches` row, so concurrent transactions only queued on that row's lock (26 ms a statement).
    mergePartitions: true,
    // Entries answered where they were fanned out travel on the `.decided` twin topic, not here.
    batchHandler: progress,
  });
}
