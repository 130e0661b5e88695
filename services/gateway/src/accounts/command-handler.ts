import { accountStreamId, parseAccountEvent } from '@vop/contracts';
import { handleCommand, type EventStore, type SqlExecutor } from '@vop/event-store';
import {
  type AccountCommand,
  type AccountState,
  decideAccount,
  evolveAccount,
  initialAccountState,
} from './decider.js';
import type { AccountEventProtector } from '@vop/personal-data';
import { type AccountCopyAtCommit, appendedAt } from '@vop/verifications';
import { type ProjectionOptions, projectAccountEvent } from './read-model.js';

const MAX_ATTEMPTS = 3;

const accountDecider = {
  decide: decideAccount,
  evolve: evolveAccount,
  initialState: () => initialAccountState,
};

/** An account write: the append, the inline read model and the copies (`copy`) in one transaction. */
async function writeAccount(
  store: EventStore,
  command: AccountCommand,
  metadata: Record<string, string>,
  write: {
    projection: ProjectionOptions;
    protect: AccountEventProtector | undefined;
    copy: AccountCopyAtCommit | undefined;
    transaction: { tx: SqlExecutor } | { attempts: number };
  },
): Promise<AccountState> {
  const { projection, protect, copy } = write;
  const { newState } = await handleCommand(
    store,
    accountStreamId(command.accountId),
    accountDecider,
    command,
    {
      ...write.transaction,
      parse: (event) => parseAccountEvent(event.type, event.data),
      metadata,
      ...(protect && {
        beforeAppend: (events, tx) => Promise.all(events.map((event) => protect(event, tx))),
      }),
      afterAppend: async ({ newEvents, nextExpectedVersion }, tx) => {
        for (const event of newEvents)
          await projectAccountEvent(tx, store.schema, event, projection);
        await copy?.apply(tx, appendedAt(nextExpectedVersion - newEvents.length, newEvents));
      },
    },
  );
  return newState;
}

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
  return writeAccount(store, command, metadata, { projection, protect, copy, transaction: { tx } });
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
  const transaction = { attempts: MAX_ATTEMPTS };
  const state = await writeAccount(store, command, metadata, {
    projection,
    protect,
    copy,
    transaction,
  });
  copy?.committed();
  return state;
}
