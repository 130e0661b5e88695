import type { AccountCopyAtCommit } from '@vop/verifications';
import type { SqlExecutor } from '@vop/event-store';
import { projectDomesticAccounts } from './read-model.js';

/**
 * The domestic accounts read model written in an account write's transaction, when the writer shares
 * this service's database (embedded): a form 1 entry sent after the write was answered finds it. It
 * keeps no rows in memory.
 */
export function domesticAccountsAtCommit(schema: string): AccountCopyAtCommit {
  return {
    apply: async (tx: SqlExecutor, appended) => {
      await projectDomesticAccounts(
        tx,
        schema,
        appended.map(({ event }) => event),
      );
    },
    committed: () => undefined,
  };
}
