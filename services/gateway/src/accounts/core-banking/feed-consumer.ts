import {
  CoreBankingAccountChange,
  type CoreBankingDeadLetter,
  type TopicNames,
} from '@vop/contracts';
import { schemaMigration, type EventStore } from '@vop/event-store';
import type { AccountCopyAtCommit } from '@vop/verifications';
import type { Bus, IncomingMessage, Subscription } from '@vop/messaging';
import type { Logger } from '@vop/observability';
import { logHandlerError } from '@vop/outbox';
import type { AccountEventProtector } from '@vop/personal-data';
import { applyAccountCommand } from '../command-handler.js';
import { findLiveAccountIdByIban } from '../read-model.js';
import { commandForChange } from './change-command.js';

export const CORE_BANKING_CONSUMER = 'core-banking-feed';

/** The source ids of the changes already applied: a redelivered or repeated change writes nothing. */
export const migrateCoreBankingFeed = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.core_banking_changes (
         source_event_id text PRIMARY KEY,
         processed_at timestamptz NOT NULL DEFAULT now()
       )`,
]);

type Parsed =
  | { ok: true; change: CoreBankingAccountChange }
  | { ok: false; reason: CoreBankingDeadLetter['reason']; field?: string };

function parseChange(value: string): Parsed {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return { ok: false, reason: 'NOT_JSON' };
  }
  const parsed = CoreBankingAccountChange.safeParse(raw);
  if (parsed.success) return { ok: true, change: parsed.data };
  const field = parsed.error.issues[0]?.path.join('.') || 'body';
  return { ok: false, reason: 'INVALID_CHANGE', field };
}

export interface CoreBankingFeedOptions {
  bus: Bus;
  store: EventStore;
  protect: AccountEventProtector;
  /** The copies of the accounts that decisions read, written with each change. */
  copy?: AccountCopyAtCommit;
  topics: TopicNames;
  groupPrefix: string;
  logger: Logger;
  clock: () => Date;
  newId: () => string;
}

/**
 * Keeps the bank's account records current from its core-banking system. Changes of one IBAN arrive
 * in order (one partition, one at a time); each is applied with its source id recorded in the same
 * transaction, so it is applied once. A change that cannot be applied goes to the dead-letter topic
 * with the reason, and the feed moves on; the log names only the reason and the position.
 */
export function subscribeToCoreBankingFeed(options: CoreBankingFeedOptions): Promise<Subscription> {
  const { bus, store, topics, logger } = options;
  const sql = store.sql;
  const appliedBefore = `SELECT 1 FROM ${store.schema}.core_banking_changes WHERE source_event_id = $1`;
  const record = `INSERT INTO ${store.schema}.core_banking_changes (source_event_id) VALUES ($1)`;

  async function deadLetter(message: IncomingMessage, parsed: Parsed & { ok: false }) {
    const letter: CoreBankingDeadLetter = {
      reason: parsed.reason,
      ...(parsed.field !== undefined && { field: parsed.field }),
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      value: message.value,
    };
    await bus.publish(topics.coreBankingDeadLetters, [
      { key: message.key, value: JSON.stringify(letter), headers: { reason: parsed.reason } },
    ]);
    logger.warn(
      {
        consumer: CORE_BANKING_CONSUMER,
        reason: parsed.reason,
        field: parsed.field,
        offset: message.offset,
      },
      'core-banking change dead-lettered',
    );
  }

  async function apply(message: IncomingMessage): Promise<void> {
    const parsed = parseChange(message.value);
    if (!parsed.ok) return deadLetter(message, parsed);
    const { change } = parsed;
    const outcome = await sql.transaction(async (tx) => {
      if ((await tx.query(appliedBefore, [change.sourceEventId])).rows.length > 0)
        return 'repeated';
      const liveAccountId = await findLiveAccountIdByIban(tx, store.schema, change.iban);
      const now = options.clock().toISOString();
      const command = commandForChange(change, liveAccountId, { newId: options.newId, now });
      // Nothing recorded: should the account appear, the same change can still be applied.
      if (command === undefined) return 'unknown-account';
      await tx.query(record, [change.sourceEventId]);
      const metadata = { correlationId: `core-banking:${change.sourceEventId}` };
      await applyAccountCommand(store, command, metadata, tx, {}, options.protect, options.copy);
      return 'applied';
    });
    if (outcome === 'applied') options.copy?.committed();
    if (outcome === 'unknown-account')
      await deadLetter(message, { ok: false, reason: 'UNKNOWN_ACCOUNT' });
  }

  return bus.subscribe({
    groupId: `${options.groupPrefix}gateway-${CORE_BANKING_CONSUMER}`,
    topics: [topics.coreBankingAccountChanges],
    onHandlerError: logHandlerError(logger, CORE_BANKING_CONSUMER),
    handler: apply,
  });
}
