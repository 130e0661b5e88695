import type { AccountCopyAtCommit } from '@vop/verifications';
import type { EventStore } from '@vop/event-store';
import type { Logger } from '@vop/observability';
import { periodicJob } from '@vop/lifecycle';
import { handleAccountCommand } from './command-handler.js';
import { AccountNotFoundError } from './decider.js';
import { findExpiredTestAccounts } from './read-model.js';

export interface TestAccountRetention {
  /** How long a test account lives (the specification: 24 hours). */
  retentionMs: number;
  /** How often the job looks for expired test accounts. */
  sweepIntervalMs: number;
}

const BATCH = 100;

export interface TestAccountSweeper {
  /** Deletes every expired test account now; returns how many it deleted. */
  sweep(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The scheduled job that removes test accounts after the retention: an AccountDeleted for each, so every
 * projection (matching included) forgets them. Several gateway instances may sweep at once: the loser of a
 * race finds the account already deleted and moves on.
 */
export function createTestAccountSweeper(options: {
  store: EventStore;
  /** The copies of the accounts that decisions read, written with each deletion. */
  copy?: AccountCopyAtCommit;
  retention: TestAccountRetention;
  logger: Logger;
  now?: () => Date;
}): TestAccountSweeper {
  const { store, retention, logger } = options;
  const now = options.now ?? (() => new Date());
  async function sweep(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const cutoff = new Date(now().getTime() - retention.retentionMs);
      const expired = await findExpiredTestAccounts(store.sql, store.schema, cutoff, BATCH);
      for (const accountId of expired) {
        try {
          await handleAccountCommand(
            store,
            { type: 'DeleteAccount', accountId, now: now().toISOString() },
            { correlationId: `test-account-retention:${accountId}` },
            {},
            undefined,
            options.copy,
          );
          deleted++;
        } catch (error) {
          if (!(error instanceof AccountNotFoundError)) throw error;
        }
      }
      if (expired.length < BATCH) return deleted;
    }
  }

  const job = periodicJob({
    intervalMs: retention.sweepIntervalMs,
    run: async () => {
      const deleted = await sweep();
      if (deleted > 0) logger.info({ deleted }, 'expired test accounts removed');
    },
    onError: (error) =>
      logger.warn({ err: error }, 'test account retention sweep failed; retrying at the next tick'),
  });

  return { sweep, start: job.start, stop: job.stop };
}
