import {
  type AccountEvent,
  parseAccountEvent,
  parseBatchCompleted,
  parseVerificationCompleted,
  parseVerificationFailed,
  parseVerificationRequested,
  type VerificationCompletedData,
  type VerificationRequestedData,
} from '@vop/contracts';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import { migrateAccountsReadModel, projectAccountEvents } from '../accounts/read-model.js';
import { migrateBatchesReadModel, projectBatchCompleted } from '../batches/read-model.js';
import {
  migrateActivityReadModel,
  projectVerificationFailed,
  projectVerificationsCompleted,
  projectVerificationsRequested,
} from './read-model.js';

/** An integration event as delivered: its type, data and (account events) stream revision. */
export interface AnalyticsEvent {
  type: string;
  data: unknown;
  streamPosition?: number | undefined;
}

/** The analytics read models, in the service's own schema. */
export async function migrateAnalyticsReadModels(sql: SqlClient, schema: string): Promise<void> {
  await migrateActivityReadModel(sql, schema);
  await migrateAccountsReadModel(sql, schema);
  await migrateBatchesReadModel(sql, schema);
}

/**
 * Applies delivered events in order; event types analytics does not read are skipped. Consecutive
 * requests (or completions, or account events) are written together, a statement or two per run
 * rather than per event (an import's account events arrive by the thousand).
 */
export async function projectAnalyticsEvents(
  tx: SqlExecutor,
  schema: string,
  events: readonly AnalyticsEvent[],
): Promise<void> {
  let requests: VerificationRequestedData[] = [];
  let completions: VerificationCompletedData[] = [];
  let accounts: { event: AccountEvent; revision: number }[] = [];
  const flush = async (): Promise<void> => {
    await projectVerificationsRequested(tx, schema, requests);
    await projectVerificationsCompleted(tx, schema, completions);
    await projectAccountEvents(tx, schema, accounts);
    requests = [];
    completions = [];
    accounts = [];
  };
  for (const { type, data, streamPosition } of events) {
    switch (type) {
      case 'VerificationRequested':
        if (completions.length > 0 || accounts.length > 0) await flush();
        requests.push(parseVerificationRequested(type, data));
        break;
      case 'VerificationCompleted':
        if (requests.length > 0 || accounts.length > 0) await flush();
        completions.push(parseVerificationCompleted(type, data));
        break;
      case 'VerificationFailed':
        await flush();
        await projectVerificationFailed(tx, schema, parseVerificationFailed(type, data));
        break;
      case 'AccountOpened':
      case 'AccountUpdated':
      case 'AccountDeleted':
        if (requests.length > 0 || completions.length > 0) await flush();
        accounts.push({ event: parseAccountEvent(type, data), revision: streamPosition ?? 1 });
        break;
      case 'BatchCompleted':
        await flush();
        await projectBatchCompleted(tx, schema, parseBatchCompleted(type, data));
        break;
      default:
        break;
    }
  }
  await flush();
}

/** The tables a rebuild empties. */
export const ANALYTICS_TABLES = ['verifications', 'accounts', 'account_ibans', 'batches'] as const;
