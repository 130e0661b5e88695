import {
  parseAccountEvent,
  parseBatchCompleted,
  parseVerificationCompleted,
  parseVerificationFailed,
  parseVerificationRequested,
} from '@vop/contracts';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import { migrateAccountsReadModel, projectAccountEvent } from '../accounts/read-model.js';
import { migrateBatchesReadModel, projectBatchCompleted } from '../batches/read-model.js';
import {
  migrateActivityReadModel,
  projectVerificationCompleted,
  projectVerificationFailed,
  projectVerificationRequested,
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

/** Applies delivered events in order; event types analytics does not read are skipped. */
export async function projectAnalyticsEvents(
  tx: SqlExecutor,
  schema: string,
  events: readonly AnalyticsEvent[],
): Promise<void> {
  for (const { type, data, streamPosition } of events) {
    switch (type) {
      case 'VerificationRequested':
        await projectVerificationRequested(tx, schema, parseVerificationRequested(type, data));
        break;
      case 'VerificationCompleted':
        await projectVerificationCompleted(tx, schema, parseVerificationCompleted(type, data));
        break;
      case 'VerificationFailed':
        await projectVerificationFailed(tx, schema, parseVerificationFailed(type, data));
        break;
      case 'AccountOpened':
      case 'AccountUpdated':
      case 'AccountDeleted':
        await projectAccountEvent(tx, schema, parseAccountEvent(type, data), streamPosition ?? 1);
        break;
      case 'BatchCompleted':
        await projectBatchCompleted(tx, schema, parseBatchCompleted(type, data));
        break;
      default:
        break;
    }
  }
}

/** The tables a rebuild empties (with the processed ids of their consumer). */
export const ANALYTICS_TABLES = ['verifications', 'accounts', 'account_ibans', 'batches'] as const;
