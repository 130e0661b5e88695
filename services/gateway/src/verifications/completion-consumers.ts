import { VerificationCompleted, type VerificationCompletedData } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import { idempotentHandler, parseEnvelope } from '@vop/outbox';
import { recordCompletedVerification } from './read-model.js';
import type { CompletionWaiters } from './waiters.js';

function completedData(type: string, data: unknown): VerificationCompletedData {
  return VerificationCompleted.parse({ type, data }).data;
}

/**
 * Two readers of verification-completed: the shared, durable results read model (one group for all
 * gateway instances, each event applied once) and this instance's own group that wakes its waiting callers.
 */
export async function subscribeToCompletions(options: {
  bus: Bus;
  sql: SqlClient;
  schema: string;
  instanceId: string;
  waiters: CompletionWaiters;
  topic: string;
  groupPrefix: string;
}): Promise<Subscription[]> {
  const { bus, sql, schema, instanceId, waiters, topic, groupPrefix } = options;
  const results = await bus.subscribe({
    groupId: `${groupPrefix}gateway-verification-results`,
    topics: [topic],
    fromBeginning: true,
    partitionsConsumedConcurrently: 4,
    handler: idempotentHandler({
      sql,
      schema,
      consumer: 'verification-results',
      apply: async (envelope, tx) => {
        const completed = completedData(envelope.type, envelope.data);
        await recordCompletedVerification(tx, schema, completed);
        waiters.notify(completed);
      },
    }),
  });
  const wakeups = await bus.subscribe({
    groupId: `${groupPrefix}gateway-waiters-${instanceId}`,
    topics: [topic],
    fromBeginning: false,
    partitionsConsumedConcurrently: 4,
    handler: async (message) => {
      const envelope = parseEnvelope(message);
      waiters.notify(completedData(envelope.type, envelope.data));
    },
  });
  return [results, wakeups];
}
