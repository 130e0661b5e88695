import { type AccountEvent, parseAccountEvent } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus, IncomingMessage, Subscription } from '@vop/messaging';
import { accountCopyLag } from '@vop/verifications';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { logHandlerError, parseEnvelope } from '@vop/outbox';
import { projectDomesticAccounts } from './read-model.js';

/**
 * Keeps the domestic accounts read model from the account events, a delivery in one statement (an
 * import's events arrive by the thousand). No inbox: a row is written only when an event is newer
 * than it and says something else, so an event delivered again changes nothing.
 */
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
  /** Applies a delivery; `lateSince` gets when each event of an account whose row changed was written. */
  const project = async (messages: IncomingMessage[], lateSince: string[]) => {
    const envelopes = messages.map(parseEnvelope);
    const events = envelopes.map((envelope) => parseAccountEvent(envelope.type, envelope.data));
    if (events.length === 0) return;
    const changed = await sql.transaction((tx) => projectDomesticAccounts(tx, schema, events));
    // An event the writer already put here at commit changes nothing: it was not late.
    envelopes.forEach((envelope, index) => {
      if (changed.has((events[index] as AccountEvent).data.accountId))
        lateSince.push(envelope.occurredAt);
    });
  };
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
