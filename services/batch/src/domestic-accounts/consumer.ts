import { parseAccountEvent } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus, IncomingMessage, Subscription } from '@vop/messaging';
import { accountCopyLag } from '@vop/verifications';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { idempotentBatchHandler, logHandlerError } from '@vop/outbox';
import { projectDomesticAccount } from './read-model.js';

/** Keeps the domestic accounts read model from the account events, each event applied once (inbox). */
export async function subscribeToDomesticAccounts(options: {
  bus: Bus;
  sql: SqlClient;
  schema: string;
  topic: string;
  groupPrefix: string;
  logger: Logger;
  /** Where `account_copy_lag_seconds{copy}` is observed. */
  metrics?: ServiceMetrics;
}): Promise<Subscription> {
  const { bus, sql, schema, logger } = options;
  const groupId = `${options.groupPrefix}batch-domestic-accounts`;
  const observeLag = options.metrics && accountCopyLag(options.metrics, groupId);
  /** Applies a delivery; `lateSince` gets when each event that changed a row was written. */
  const project = (messages: IncomingMessage[], lateSince: string[]) =>
    idempotentBatchHandler({
      sql,
      schema,
      consumer: 'batch-domestic-accounts',
      applyBatch: async (envelopes, tx) => {
        lateSince.length = 0;
        for (const envelope of envelopes) {
          const event = parseAccountEvent(envelope.type, envelope.data);
          // An event the writer already put here at commit changes nothing: it was not late.
          if (await projectDomesticAccount(tx, schema, event)) lateSince.push(envelope.occurredAt);
        }
      },
    })(messages);
  return bus.subscribe({
    groupId,
    onHandlerError: logHandlerError(logger, 'batch-domestic-accounts'),
    topics: [options.topic],
    fromBeginning: true,
    batchHandler: async (messages) => {
      const lateSince: string[] = [];
      await project(messages, lateSince);
      observeLag?.(lateSince);
    },
  });
}
