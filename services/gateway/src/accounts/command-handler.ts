import { parseAccountEvent } from '@vop/contracts';
import { ConcurrencyError, type EventStore, type SqlExecutor } from '@vop/event-store';
import {
  type AccountCommand,
  type AccountState,
  decideAccount,
  evolveAccount,
  initialAccountState,
} from './decider.js';
import type { AccountEventProtector } from '@vop/personal-data';
import { type AccountCopyAtCommit, appendedAt } from '@vop/decisions';
import { type ProjectionOptions, projectAccountEvent } from './read-model.js';

export const accountStreamId = (accountId: string): string => `account-${accountId}`;

const MAX_ATTEMPTS = 3;

/**
 * Loads the aggregate, decides, appends with the version it read and updates the inline read model
 * and the copies of the accounts held in this database (`copy`), all in the caller's transaction (one
 * attempt: a concurrent writer makes it throw ConcurrencyError). The caller calls `copy.committed()`
 * once its transaction committed.
 */
export async function applyAccountCommand(
  store: EventStore,
  command: AccountCommand,
  metadata: Record<string, string>,
  tx: SqlExecutor,
  projection: ProjectionOptions = {},
  /** Encrypts personal fields before they are stored; every write of a name passes it. */
  protect?: AccountEventProtector,
  copy?: AccountCopyAtCommit,
): Promise<AccountState> {
  const streamId = accountStreamId(command.accountId);
  const stored = await store.readStream(streamId, { tx });
  const state = stored
    .map((event) => parseAccountEvent(event.type, event.data))
    .reduce(evolveAccount, initialAccountState);
  const decided = decideAccount(command, state);
  const events = protect ? await Promise.all(decided.map((event) => protect(event, tx))) : decided;
  await store.append(
    streamId,
    events.map((event) => ({ type: event.type, data: event.data, metadata })),
    { expectedVersion: stored.length, tx },
  );
  for (const event of events) await projectAccountEvent(tx, store.schema, event, projection);
  await copy?.apply(tx, appendedAt(stored.length, events));
  return events.reduce(evolveAccount, state);
}

/**
 * applyAccountCommand in a transaction of its own; a concurrent writer makes it try again. Once it
 * returns, every check that reads `copy` sees the write.
 */
export async function handleAccountCommand(
  store: EventStore,
  command: AccountCommand,
  metadata: Record<string, string>,
  projection: ProjectionOptions = {},
  protect?: AccountEventProtector,
  copy?: AccountCopyAtCommit,
): Promise<AccountState> {
  for (let attempt = 1; ; attempt++) {
    try {
      const state = await store.sql.transaction((tx) =>
        applyAccountCommand(store, command, metadata, tx, projection, protect, copy),
      );
      copy?.committed();
      return state;
    } catch (error) {
      if (error instanceof ConcurrencyError && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
  }
}
