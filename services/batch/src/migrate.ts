import type { EventStore, SqlClient } from '@vop/event-store';
import { migrateInbox } from '@vop/outbox';
import { migrateFanOut } from './batches/fan-out.js';
import { migrateBatchReadModels } from './batches/status-read-model.js';
import { migrateDomesticAccounts } from './domestic-accounts/read-model.js';

/**
 * Everything the batch service keeps in its store's schema: the events, the inbox, the status and
 * results read models, the staged fan-out and the domestic accounts. The service migrates at start;
 * specs migrate a fresh database the same way.
 */
export async function migrateBatchSchema(sql: SqlClient, store: EventStore): Promise<void> {
  await store.migrate();
  await migrateInbox(sql, store.schema);
  await migrateBatchReadModels(sql, store.schema);
  await migrateFanOut(sql, store.schema);
  await migrateDomesticAccounts(sql, store.schema);
}
