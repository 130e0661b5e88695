import {
  ACCOUNT_STREAM_PREFIX,
  type AccountEvent,
  type IntegrationEnvelope as Envelope,
  parseAccountEvent,
} from '@vop/contracts';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import type { Bus, IncomingMessage, Subscription } from '@vop/messaging';
import type { Logger, ServiceMetrics } from '@vop/observability';
import {
  logHandlerError,
  migrateInbox,
  parseEnvelope,
  STREAM_ID_HEADER,
  STREAM_POSITION_HEADER,
} from '@vop/outbox';
import { AccountCache } from './account-cache.js';
import { accountCopyLag } from './account-copy-lag.js';
import type { AccountCopyAtCommit } from './account-copy-at-commit.js';
import { migrateAccountProjection, projectAppendedAccounts } from './account-projection.js';

/**
 * Most account events in one delivery of a copy, applied in one statement: on Kafka the partitions
 * fetched together are merged into it (an import's chunk comes as some hundred events on each
 * partition, and each delivery costs the copy a transaction and its statements whatever its size).
 */
export const ACCOUNT_COPY_DELIVERY_MAX = 2_000;

export interface AccountProjectionOptions {
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  /** The projection's schema (its accounts table and its inbox). */
  schema: string;
  /** The consumer group applying account events; every process of the group shares the rows. */
  groupId: string;
  /** The account events topic. */
  topic: string;
  /** Where `account_copy_lag_seconds` is observed (the copy named by its group). */
  metrics?: ServiceMetrics;
  /**
   * Another read model of the accounts in this process's database, kept from the copy's deliveries in
   * the copy's transaction (batch's domestic accounts): the events are fetched, decoded and parsed once,
   * not once for each. Returns the accounts whose rows it changed. Also applied at commit by whoever
   * writes the copy at commit, so it skips what the copy skips.
   */
  alongside?: AccountsAlongside;
}

/** A read model applied with a copy's deliveries (`AccountProjectionOptions.alongside`). */
export type AccountsAlongside = (
  tx: SqlExecutor,
  events: readonly AccountEvent[],
) => Promise<ReadonlySet<string>>;

/**
 * A deciding service's copy of the accounts: the account events from the bus in a table of its own
 * database, and the rows in memory (`cache`). Whichever process of the group applies an event notifies
 * in its transaction; every process of the projection keeps rows only while it listens (a wake-up also
 * comes when a lost listening connection is back). Without LISTEN every round reads its accounts.
 */
export class AccountProjection {
  readonly cache = new AccountCache();
  readonly schema: string;
  private readonly changed: string;
  private stopHearing: (() => Promise<void>) | undefined;
  private caughtUpOnce = false;
  /**
   * Whether this process's writes put their events here at commit: its deliveries are then first
   * checked against the copy (matching, distributed, only ever applies from the topic).
   */
  private writtenAtCommit = false;

  constructor(private readonly options: AccountProjectionOptions) {
    this.schema = options.schema;
    this.changed = `${options.schema}_accounts_changed`;
  }

  get group(): { groupId: string; topics: string[] } {
    return { groupId: this.options.groupId, topics: [this.options.topic] };
  }

  async migrate(): Promise<void> {
    await migrateInbox(this.options.sql, this.schema);
    await migrateAccountProjection(this.options.sql, this.schema);
  }

  /** Rows are kept from here on, as long as LISTEN is in effect. */
  async listen(): Promise<void> {
    if (this.stopHearing !== undefined) return;
    try {
      this.stopHearing = await this.options.sql.listen(this.changed, () => this.cache.invalidate());
      this.cache.trust(true);
    } catch (error) {
      this.options.logger.warn(
        { err: error },
        'not listening for account changes; account rows are read each round',
      );
    }
  }

  /**
   * The copy written in an account write's transaction, when the writer's database holds it (the
   * gateway's own copy; embedded, every copy): a check after the write was answered sees it.
   */
  atCommit(): AccountCopyAtCommit {
    return {
      apply: async (tx, appended) => {
        this.writtenAtCommit = true;
        await projectAppendedAccounts(tx, this.schema, appended, { atCommit: true });
        // The other processes of this projection forget their rows at commit.
        await this.options.sql.notify(this.changed, tx);
      },
      committed: () => this.cache.invalidate(),
    };
  }

  /** Applies account events (only one process of the group applies each). */
  async subscribe(): Promise<Subscription> {
    const { sql, bus, logger } = this.options;
    const observeLag =
      this.options.metrics && accountCopyLag(this.options.metrics, this.options.groupId);
    /**
     * Applies a delivery in one statement (an import's events arrive by the thousand); `lateSince`
     * gets when each event it changed the copy with was written. No inbox: each row keeps the
     * revision it reflects, so an event delivered again changes nothing. Whether any row changed.
     */
    const project = async (messages: IncomingMessage[], lateSince: string[]) => {
      const envelopes = this.writtenAtCommit
        ? (await this.notYetCopied(messages.map(located))).map(
            ({ message, envelope }) => envelope ?? parseEnvelope(message),
          )
        : messages.map(parseEnvelope);
      const appended = envelopes.map((envelope) => ({
        event: parseAccountEvent(envelope.type, envelope.data),
        revision: envelope.streamPosition ?? 1,
        occurredAt: envelope.occurredAt,
      }));
      if (appended.length === 0) return false;
      const alongside = this.options.alongside;
      return sql.transaction(async (tx) => {
        const changed = await projectAppendedAccounts(tx, this.schema, appended);
        const events = appended.map(({ event }) => event);
        const changedAlongside = alongside === undefined ? new Set() : await alongside(tx, events);
        // An event the writer already put here at commit changes nothing: this copy had it.
        for (const { event, occurredAt } of appended) {
          const { accountId } = event.data;
          if (changed.has(accountId) || changedAlongside.has(accountId)) lateSince.push(occurredAt);
        }
        // At commit, every process of this projection forgets the rows it keeps.
        if (changed.size > 0) await sql.notify(this.changed, tx);
        return changed.size > 0;
      });
    };
    return bus.subscribe({
      ...this.group,
      onHandlerError: logHandlerError(logger, 'account-projection'),
      partitionsConsumedConcurrently: 4,
      mergePartitions: true,
      maxBatchSize: ACCOUNT_COPY_DELIVERY_MAX,
      batchHandler: async (messages) => {
        const lateSince: string[] = [];
        let changed = true;
        try {
          changed = await project(messages, lateSince);
        } finally {
          // Committed or failed, the rows may have changed: the next round here reads them again
          // (before the notification is back). A delivery the copy already had changes nothing.
          if (changed) this.cache.invalidate();
        }
        observeLag?.(lateSince);
      },
    });
  }

  /**
   * The messages this copy does not have yet, by one read of the revisions of their accounts' rows:
   * where this process's own writes put their events at commit (an import's thousands), the delivery
   * that brings them again is then neither parsed nor written a second time.
   */
  private async notYetCopied(messages: Located[]): Promise<Located[]> {
    const accountIds = [...new Set(messages.map(({ accountId }) => accountId))].filter(
      (id): id is string => id !== undefined,
    );
    if (accountIds.length === 0) return messages;
    const { rows } = await this.options.sql.query<{ account_id: string; revision: number }>(
      `SELECT account_id::text, revision FROM ${this.schema}.accounts WHERE account_id = ANY($1::uuid[])`,
      [accountIds],
    );
    const copied = new Map(rows.map((row) => [row.account_id, row.revision]));
    return messages.filter(({ accountId, revision }) => {
      const held = accountId === undefined ? undefined : copied.get(accountId);
      return held === undefined || held < revision;
    });
  }

  /**
   * Whether the projection has once caught up with the account events: a new copy (a first start, or
   * a new group beside an old one) would otherwise answer checks "no account" while it fills. Once
   * caught up it stays so; a later lag is the normal delay of an account change.
   */
  async caughtUp(): Promise<boolean> {
    if (!this.caughtUpOnce) this.caughtUpOnce = (await this.lag()) === 0;
    return this.caughtUpOnce;
  }

  /** Throws until `caughtUp` (a readiness check). */
  async checkCaughtUp(): Promise<void> {
    if (await this.caughtUp()) return;
    throw new Error(`the account projection is ${await this.lag()} account events behind`);
  }

  private async lag(): Promise<number> {
    const { bus, groupId, topic } = this.options;
    return (await bus.consumerLag?.(groupId, [topic])) ?? 0;
  }

  async stop(): Promise<void> {
    this.cache.trust(false);
    await this.stopHearing?.();
    this.stopHearing = undefined;
  }
}

/**
 * A delivered message with the account whose row it would change (undefined: none found) and to which
 * revision, from its stream headers (`toOutgoingMessage`); a message published without them is parsed
 * for them, and its envelope kept.
 */
interface Located {
  message: IncomingMessage;
  accountId: string | undefined;
  revision: number;
  envelope?: Envelope;
}

function located(message: IncomingMessage): Located {
  const streamId = message.headers[STREAM_ID_HEADER];
  const position = Number(message.headers[STREAM_POSITION_HEADER]);
  if (streamId !== undefined && Number.isSafeInteger(position) && position >= 1) {
    const accountId = streamId.startsWith(ACCOUNT_STREAM_PREFIX)
      ? asAccountId(streamId.slice(ACCOUNT_STREAM_PREFIX.length))
      : undefined;
    return { message, accountId, revision: position };
  }
  // Else the account from the envelope's data, before the account event is parsed (one that does not
  // parse is kept, applied, and fails there).
  const envelope = parseEnvelope(message);
  const { data } = envelope as { data: unknown };
  const accountId =
    typeof data === 'object' && data !== null
      ? (data as { accountId?: unknown }).accountId
      : undefined;
  return {
    message,
    envelope,
    accountId: asAccountId(accountId),
    revision: envelope.streamPosition ?? 1,
  };
}

/** An account id as the copy keys it (lower case), or undefined for anything but a UUID. */
function asAccountId(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
