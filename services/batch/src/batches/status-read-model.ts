import { responderFailureOf, type BatchStatusValue, type VerificationEnd } from '@vop/contracts';
import { schemaMigration, type SqlExecutor } from '@vop/event-store';
import type { BatchForm, EntryJudgement } from './decider.js';

export const migrateBatchReadModels = schemaMigration((schema) => [
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

export interface BatchRow {
  batch_id: string;
  status: BatchStatusValue;
  total: number;
  processed: number;
  successful: number;
  failed: number;
}

/** Inline, in the transaction that records the submission: the batch, none of its entries answered. */
export async function insertSubmittedBatch(
  tx: SqlExecutor,
  schema: string,
  batch: {
    participant: string;
    batchId: string;
    form: BatchForm;
    total: number;
    submittedAt: string;
  },
): Promise<void> {
  const { participant, batchId, form, total, submittedAt } = batch;
  await tx.query(
    `INSERT INTO ${schema}.batches (participant, batch_id, form, status, total, submitted_at)
     VALUES ($1, $2, $3, 'PENDING', $4, $5)`,
    [participant, batchId, form, total, submittedAt],
  );
}

/** A batch's entries in submission order, numbered on from `after` (the entries already there). */
export async function insertBatchEntries(
  tx: SqlExecutor,
  schema: string,
  key: { participant: string; batchId: string },
  entryIds: string[],
  after = 0,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${schema}.batch_entries (participant, batch_id, seq, entry_id)
     SELECT $1, $2, $4 + ordinality, id
       FROM jsonb_array_elements_text($3::jsonb) WITH ORDINALITY AS e(id, ordinality)`,
    [key.participant, key.batchId, JSON.stringify(entryIds), after],
  );
}

/** Outcome of an entry whose verification ended with VerificationFailed; its reason is in `reasons`. */
export const FAILED_OUTCOME = 'FAILED';

/** One entry's end: a matcher outcome, or FAILED_OUTCOME with the failure's reason. */
export type Answer = {
  participant: string;
  batchId: string;
  entryId: string;
  outcome: string;
  score: number;
  matchedName?: string;
  reasons: string[];
};

export interface FinishedBatch {
  participant: string;
  batchId: string;
  status: 'COMPLETED' | 'FAILED';
  successful: number;
  failed: number;
}

/**
 * Answers entries not answered before (the first end of an entry wins: a redelivered completion, or a
 * failure after a completion, changes nothing) and counts them on their batches, in a fixed order of
 * batches so concurrent partitions never deadlock. Returns the answers that took effect and the
 * batches whose every entry is now answered: FAILED when every entry failed, else COMPLETED.
 */
export async function recordEntryAnswers(
  tx: SqlExecutor,
  schema: string,
  answers: Answer[],
  answeredAt: string,
): Promise<{ fresh: Answer[]; finished: FinishedBatch[] }> {
  const keyOf = (participant: string, batchId: string, entryId: string) =>
    JSON.stringify([participant, batchId, entryId]);
  const firsts = new Map<string, Answer>();
  for (const answer of answers) {
    const key = keyOf(answer.participant, answer.batchId, answer.entryId);
    if (!firsts.has(key)) firsts.set(key, answer);
  }
  if (firsts.size === 0) return { fresh: [], finished: [] };
  const { rows } = await tx.query<{ participant: string; batch_id: string; entry_id: string }>(
    `UPDATE ${schema}.batch_entries AS e
        SET outcome = a.outcome, score = a.score, matched_name = a."matchedName", reasons = a.reasons
       FROM jsonb_to_recordset($1::jsonb) AS a(participant text, "batchId" text, "entryId" text,
            outcome text, score double precision, "matchedName" text, reasons jsonb)
      WHERE e.participant = a.participant AND e.batch_id = a."batchId" AND e.entry_id = a."entryId"
        AND e.outcome IS NULL
  RETURNING e.participant, e.batch_id, e.entry_id`,
    [JSON.stringify([...firsts.values()])],
  );
  const updated = new Set(rows.map((row) => keyOf(row.participant, row.batch_id, row.entry_id)));
  const fresh = [...firsts.entries()].filter(([key]) => updated.has(key)).map(([, a]) => a);
  const counts = new Map<
    string,
    { participant: string; batchId: string; ok: number; failed: number }
  >();
  for (const answer of fresh) {
    const key = JSON.stringify([answer.participant, answer.batchId]);
    const count = counts.get(key) ?? {
      participant: answer.participant,
      batchId: answer.batchId,
      ok: 0,
      failed: 0,
    };
    if (answer.outcome === FAILED_OUTCOME || responderFailureOf(answer.reasons) !== undefined)
      count.failed += 1;
    else count.ok += 1;
    counts.set(key, count);
  }
  const finished: FinishedBatch[] = [];
  for (const key of [...counts.keys()].sort()) {
    const { participant, batchId, ok, failed } = counts.get(key) as {
      participant: string;
      batchId: string;
      ok: number;
      failed: number;
    };
    const { rows: batches } = await tx.query<{
      successful: number;
      failed: number;
      status: string;
    }>(
      `UPDATE ${schema}.batches
          SET processed = processed + $3 + $4, successful = successful + $3, failed = failed + $4,
              status = CASE WHEN processed + $3 + $4 < total THEN 'PROCESSING'
                            WHEN failed + $4 >= total THEN 'FAILED' ELSE 'COMPLETED' END,
              completed_at = CASE WHEN processed + $3 + $4 >= total THEN $5::timestamptz END
        WHERE participant = $1 AND batch_id = $2
    RETURNING successful, failed, status`,
      [participant, batchId, ok, failed, answeredAt],
    );
    const batch = batches[0];
    if (batch?.status === 'COMPLETED' || batch?.status === 'FAILED')
      finished.push({
        participant,
        batchId,
        status: batch.status,
        successful: batch.successful,
        failed: batch.failed,
      });
  }
  return { fresh, finished };
}

/** The answer a verification's end gives its batch entry; the end of a single check gives none. */
export function answerOf(end: VerificationEnd): Answer | undefined {
  const { data } = end;
  if (data.batch === undefined) return undefined;
  const entry = {
    participant: data.participant ?? '',
    batchId: data.batch.batchId,
    entryId: data.batch.entryId,
  };
  if (end.type === 'VerificationFailed')
    return { ...entry, outcome: FAILED_OUTCOME, score: 0, reasons: [end.data.reason] };
  const completed = end.data;
  return {
    ...entry,
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
