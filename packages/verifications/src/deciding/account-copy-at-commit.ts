import type { AccountEvent } from '@vop/contracts';
import { pipelined, type SqlExecutor } from '@vop/event-store';

/** An account event as it was appended, with its position in the account's stream. */
export interface AppendedAccountEvent {
  event: AccountEvent;
  /** The event's position in its stream (1 for the first): the revision a copy keeps. */
  revision: number;
}

/**
 * A copy of the accounts that a decision reads, in the database of the service that writes the
 * accounts, written in the write's own transaction: once the write is answered, a check sees it.
 * The same events reach the copy again from the account events topic, where the relay publishes them,
 * and change nothing there (a copy keeps each account's newest revision). Embedded, every reader is
 * written this way, and the relay does not publish them (packages/outbox/src/relay.ts, `readAtCommit`).
 */
export interface AccountCopyAtCommit {
  /** In the write's transaction, after its events were appended. */
  apply(tx: SqlExecutor, appended: readonly AppendedAccountEvent[]): Promise<void>;
  /** Once the write's transaction committed: rows kept in memory are forgotten. */
  committed(): void;
}

/** Several copies written as one (the embedded service: every deciding service's copy in the one database). */
export function copiesAtCommit(copies: readonly AccountCopyAtCommit[]): AccountCopyAtCommit {
  return {
    async apply(tx, appended) {
      if (appended.length === 0) return;
      // Sent together: each copy is a table of its own (pipelined.ts says why).
      await pipelined(copies.map((copy) => copy.apply(tx, appended)));
    },
    committed() {
      for (const copy of copies) copy.committed();
    },
  };
}

/** The appended events with their revisions, when `events` were appended to a stream at `version`. */
export function appendedAt(
  version: number,
  events: readonly AccountEvent[],
): AppendedAccountEvent[] {
  return events.map((event, index) => ({ event, revision: version + index + 1 }));
}
