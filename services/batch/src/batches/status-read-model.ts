import type { BatchStatusValue, VerificationCompletedData } from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';
import type { BatchForm, EntryJudgement } from './decider.js';

export async function migrateBatchReadModels(sql: SqlClient, schema: string): Promise<void> {
  await migrateSchema(sql, schema, [
    `CREATE TABLE IF NOT EXISTS ${schema}.batches (
         participant text NOT NULL,
         batch_id text NOT NULL,
         form text NOT NULL,
         status text NOT NULL,
         total integer NOT NULL,
         processed integer NOT NULL DEFAULT 0,
         successful integer NOT NULL DEFAULT 0,
         failed integer NOT NULL DEFAULT 0,
         submitted_at timestamptz NOT NULL,
         completed_at timestamptz,
         PRIMARY KEY (participant, batch_id)
       )`,
    `CREATE TABLE IF NOT EXISTS ${schema}.batch_entries (
         participant text NOT NULL,
         batch_id text NOT NULL,
         seq integer NOT NULL,
         entry_id text NOT NULL,
         outcome text,
         score double precision,
         matched_name text,
         reasons jsonb,
         PRIMARY KEY (participant, batch_id, seq),
         UNIQUE (participant, batch_id, entry_id)
       )`,
  ]);
}

export interface BatchRow {
  batch_id: string;
  status: BatchStatusValue;
  total: number;
  processed: number;
  successful: number;
  failed: number;
}

/** Inline, in the transaction that records the submission: the batch and its entries, none answered. */
export async function insertSubmittedBatch(
  tx: SqlExecutor,
  schema: string,
  batch: { participant: string; batchId: string; form: BatchForm; submittedAt: string },
  entryIds: string[],
): Promise<void> {
  const { participant, batchId, form, submittedAt } = batch;
  await tx.query(
    `INSERT INTO ${schema}.batches (participant, batch_id, form, status, total, submitted_at)
     VALUES ($1, $2, $3, 'PENDING', $4, $5)`,
    [participant, batchId, form, entryIds.length, submittedAt],
  );
  await tx.query(
    `INSERT INTO ${schema}.batch_entries (participant, batch_id, seq, entry_id)
     SELECT $1, $2, ordinality, id FROM jsonb_array_elements_text($3::jsonb) WITH ORDINALITY AS e(id, ordinality)`,
    [participant, batchId, JSON.stringify(entryIds)],
  );
}

type Answer = {
  participant: string;
  batchId: string;
  entryId: string;
  outcome: string;
  score: number;
  matchedName?: string;
  reasons: string[];
};

/**
 * Answers entries not answered before (a redelivered completion changes nothing) and counts them on
 * their batches, in a fixed order of batches so concurrent partitions never deadlock. Returns the
 * batches whose every entry is now answered, marked COMPLETED here once.
 */
export async function recordEntryAnswers(
  tx: SqlExecutor,
  schema: string,
  answers: Answer[],
  completedAt: string,
): Promise<{ participant: string; batchId: string; successful: number; failed: number }[]> {
  if (answers.length === 0) return [];
  const { rows } = await tx.query<{ participant: string; batch_id: string }>(
    `UPDATE ${schema}.batch_entries AS e
        SET outcome = a.outcome, score = a.score, matched_name = a."matchedName", reasons = a.reasons
       FROM jsonb_to_recordset($1::jsonb) AS a(participant text, "batchId" text, "entryId" text,
            outcome text, score double precision, "matchedName" text, reasons jsonb)
      WHERE e.participant = a.participant AND e.batch_id = a."batchId" AND e.entry_id = a."entryId"
        AND e.outcome IS NULL
  RETURNING e.participant, e.batch_id`,
    [JSON.stringify(answers)],
  );
  const counts = new Map<string, { participant: string; batchId: string; answered: number }>();
  for (const row of rows) {
    const key = JSON.stringify([row.participant, row.batch_id]);
    const count = counts.get(key) ?? {
      participant: row.participant,
      batchId: row.batch_id,
      answered: 0,
    };
    count.answered += 1;
    counts.set(key, count);
  }
  const done: { participant: string; batchId: string; successful: number; failed: number }[] = [];
  for (const key of [...counts.keys()].sort()) {
    const { participant, batchId, answered } = counts.get(key) as {
      participant: string;
      batchId: string;
      answered: number;
    };
    const { rows: updated } = await tx.query<{ successful: number; failed: number }>(
      `UPDATE ${schema}.batches
          SET processed = processed + $3, successful = successful + $3,
              status = CASE WHEN processed + $3 >= total THEN 'COMPLETED' ELSE 'PROCESSING' END,
              completed_at = CASE WHEN processed + $3 >= total THEN $4::timestamptz END
        WHERE participant = $1 AND batch_id = $2
    RETURNING successful, failed, status`,
      [participant, batchId, answered, completedAt],
    );
    const batch = updated[0] as { successful: number; failed: number; status?: string } | undefined;
    if (batch?.status === 'COMPLETED')
      done.push({ participant, batchId, successful: batch.successful, failed: batch.failed });
  }
  return done;
}

/** The answers a completion gives its batch entry; a completion of a single check gives none. */
export function answerOf(completed: VerificationCompletedData): Answer | undefined {
  if (completed.batch === undefined) return undefined;
  return {
    participant: completed.participant ?? '',
    batchId: completed.batch.batchId,
    entryId: completed.batch.entryId,
    outcome: completed.outcome,
    score: completed.score,
    ...(completed.matchedName !== undefined && { matchedName: completed.matchedName }),
    reasons: completed.reasons,
  };
}

/** Form 1: judgements recorded at submission answer their entries at once. */
export function answersOfJudgements(
  participant: string,
  batchId: string,
  judgements: EntryJudgement[],
): Answer[] {
  return judgements.map(({ entryId, outcome, score, reasons }) => ({
    participant,
    batchId,
    entryId,
    outcome,
    score,
    reasons,
  }));
}

export async function findBatch(
  sql: SqlExecutor,
  schema: string,
  participant: string,
  batchId: string,
): Promise<BatchRow | undefined> {
  const { rows } = await sql.query<BatchRow>(
    `SELECT batch_id, status, total, processed, successful, failed
       FROM ${schema}.batches WHERE participant = $1 AND batch_id = $2`,
    [participant, batchId],
  );
  return rows[0];
}

export interface EntryRow {
  seq: number;
  entry_id: string;
  outcome: string | null;
  score: number | null;
  matched_name: string | null;
  reasons: string[] | null;
}

/** One page of entries in submission order, after the cursor (a position). */
export async function entriesPage(
  sql: SqlExecutor,
  schema: string,
  key: { participant: string; batchId: string },
  after: number,
  limit: number,
): Promise<EntryRow[]> {
  const { rows } = await sql.query<EntryRow>(
    `SELECT seq, entry_id, outcome, score, matched_name, reasons
       FROM ${schema}.batch_entries
      WHERE participant = $1 AND batch_id = $2 AND seq > $3
      ORDER BY seq LIMIT $4`,
    [key.participant, key.batchId, after, limit],
  );
  return rows;
}
