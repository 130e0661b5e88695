import type { BatchCompletedData } from '@vop/contracts';
import { schemaMigration, type SqlExecutor } from '@vop/event-store';

/** Completed batches (counts only, as the event carries them), for the usage report. */
export const migrateBatchesReadModel = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.batches (
         batch_id text PRIMARY KEY,
         participant text NOT NULL,
         status text NOT NULL,
         total integer NOT NULL,
         successful integer NOT NULL,
         failed integer NOT NULL,
         submitted_at timestamptz NOT NULL,
         completed_at timestamptz NOT NULL
       )`,
  `CREATE INDEX IF NOT EXISTS batches_completed_at ON ${schema}.batches (completed_at)`,
]);

export async function projectBatchCompleted(
  tx: SqlExecutor,
  schema: string,
  batch: BatchCompletedData,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${schema}.batches (batch_id, participant, status, total, successful, failed, submitted_at, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (batch_id) DO UPDATE SET status = EXCLUDED.status, total = EXCLUDED.total,
       successful = EXCLUDED.successful, failed = EXCLUDED.failed, completed_at = EXCLUDED.completed_at`,
    [
      batch.batchId,
      batch.participant,
      batch.status,
      batch.total,
      batch.successful,
      batch.failed,
      batch.submittedAt,
      batch.completedAt,
    ],
  );
}
