import { parseAccountEvent } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import type { Logger } from '@vop/observability';
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
}): Promise<Subscription> {
  const { bus, sql, schema, logger } = options;
  const project = idempotentBatchHandler({
    sql,
    schema,
    consumer: 'batch-domestic-accounts',
    applyBatch: async (envelopes, tx) => {
      for (const envelope of envelopes)
        await projectDomesticAccount(tx, schema, parseAccountEvent(envelope.type, envelope.data));
    },
  });
  return bus.subscribe({
    groupId: `${options.groupPrefix}batch-domestic-accounts`,
    onHandlerError: logHandlerError(logger, 'batch-domestic-accounts'),
    topics: [options.topic],
    fromBeginning: true,
    batchHandler: project,
  });
}
