import type { AccountCopyAtCommit } from '@vop/verifications';
import { projectAccountEvents } from './read-model.js';

/**
 * Analytics' accounts written in an account write's transaction, when the writer shares this service's
 * database (embedded): then every reader of the account events is written at commit, and the gateway's
 * relay need not read them back and publish them (docs/architecture.md, "Account events read at
 * commit"). A row keeps the revision it reflects, so an event delivered from the topic as well changes
 * nothing. It keeps no rows in memory.
 */
export function analyticsAccountsAtCommit(schema: string): AccountCopyAtCommit {
  return {
    apply: (tx, appended) => projectAccountEvents(tx, schema, appended, { atCommit: true }),
    committed: () => undefined,
  };
}
