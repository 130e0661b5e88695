import { parseVerificationRequested } from '@vop/contracts';
import { START, type EventStore, type RecordedEvent, type SqlExecutor } from '@vop/event-store';
import type { BatchEvent } from './decider.js';
import {
  answersOfJudgements,
  insertBatchEntries,
  insertSubmittedBatch,
  migrateBatchReadModels,
  recordEntryAnswers,
} from './status-read-model.js';

const PAGE = 1000;

/**
 * Where the replay stands: entries numbered so far, submission times, completions, per batch, and
 * the form 1 batches (their entries are their positions, all numbered at BatchSubmitted).
 */
interface ReplayState {
  entryCounts: Map<string, number>;
  numberedBatches: Set<string>;
  submittedAt: Map<string, string>;
  completions: { participant: string; batchId: string; status: string; completedAt: string }[];
}

const batchKey = (participant: string, batchId: string): string =>
  JSON.stringify([participant, batchId]);

/**
 * Empties the batch read models and projects them again from the batch service's own events, a page
 * of the store at a time: BatchSubmitted gives the batch (and a form 1 batch its entries), its
 * VerificationRequested events (carrying the entry ids, in submission order) a form 2 batch's entries, BatchEntriesJudged and BatchEntriesAnswered the
 * answers, with the counts and status the live path computed. Stop the batch processes first (an
 * answer recorded meanwhile would be missed); an interrupted rebuild is simply run again.
 */
export async function rebuildBatchReadModels(
  store: EventStore,
): Promise<{ batches: number; answers: number }> {
  const { sql, schema } = store;
  await migrateBatchReadModels(sql, schema);
  await sql.query(`TRUNCATE ${schema}.batch_entries, ${schema}.batches`);
  const counted = { batches: 0, answers: 0 };
  const state: ReplayState = {
    entryCounts: new Map(),
    numberedBatches: new Set(),
    submittedAt: new Map(),
    completions: [],
  };
  for (let checkpoint = START; ;) {
    const { events, checkpoint: next } = await store.readAll({ after: checkpoint, limit: PAGE });
    await sql.transaction(async (tx) => {
      const pending = new Map<string, { participant: string; batchId: string; ids: string[] }>();
      const flush = async () => {
        for (const [key, { participant, batchId, ids }] of pending) {
          const after = state.entryCounts.get(key) ?? 0;
          await insertBatchEntries(tx, schema, { participant, batchId }, ids, after);
          state.entryCounts.set(key, after + ids.length);
        }
        pending.clear();
      };
      for (const event of events) {
        if (event.type === 'VerificationRequested') {
          const { participant, batch } = parseVerificationRequested(event.type, event.data);
          if (batch === undefined || participant === undefined) continue;
          const key = batchKey(participant, batch.batchId);
          if (state.numberedBatches.has(key)) continue;
          const entries = pending.get(key) ?? { participant, batchId: batch.batchId, ids: [] };
          entries.ids.push(batch.entryId);
          pending.set(key, entries);
          continue;
        }
        await flush();
        counted.answers += await projectBatchEvent(tx, schema, event, state);
        if (event.type === 'BatchSubmitted') counted.batches += 1;
      }
      await flush();
    });
    if (events.length < PAGE) break;
    checkpoint = next;
  }
  // Concurrent partitions answer one batch in transactions the replay order (by transaction id) may
  // swap: the last answers replayed need not be the ones that completed it. Its BatchCompleted says.
  await sql.query(
    `UPDATE ${schema}.batches AS b SET status = c.status, completed_at = c."completedAt"::timestamptz
       FROM jsonb_to_recordset($1::jsonb)
            AS c(participant text, "batchId" text, status text, "completedAt" text)
      WHERE b.participant = c.participant AND b.batch_id = c."batchId"`,
    [JSON.stringify(state.completions)],
  );
  return counted;
}

/** The participant of a batch stream (`batch|<batchId>|<participant>`, decider.ts). */
function participantOfStream(streamId: string): string {
  return streamId.slice(streamId.indexOf('|', 'batch|'.length) + 1);
}

async function projectBatchEvent(
  tx: SqlExecutor,
  schema: string,
  recorded: RecordedEvent,
  state: ReplayState,
): Promise<number> {
  if (!recorded.streamId.startsWith('batch|')) return 0;
  const participant = participantOfStream(recorded.streamId);
  const event = { type: recorded.type, data: recorded.data } as BatchEvent;
  switch (event.type) {
    case 'BatchSubmitted': {
      const { batchId, form, total, submittedAt } = event.data;
      const key = batchKey(participant, batchId);
      state.submittedAt.set(key, submittedAt);
      await insertSubmittedBatch(tx, schema, { participant, batchId, form, total, submittedAt });
      if (form === 'account-number') {
        // Form 1 entries are judged or looked up, in any mix: their positions give the order.
        const positions = Array.from({ length: total }, (_, index) => String(index + 1));
        await insertBatchEntries(tx, schema, { participant, batchId }, positions);
        state.entryCounts.set(key, total);
        state.numberedBatches.add(key);
      }
      return 0;
    }
    case 'BatchEntriesJudged': {
      const { batchId, judgements } = event.data;
      const key = batchKey(participant, batchId);
      const answers = answersOfJudgements(participant, batchId, judgements);
      // Form 1 entries are judged at their submission's instant.
      const judgedAt = state.submittedAt.get(key) ?? recorded.occurredAt.toISOString();
      const { fresh } = await recordEntryAnswers(tx, schema, answers, judgedAt);
      return fresh.length;
    }
    case 'BatchEntriesAnswered': {
      const { batchId, answers, answeredAt } = event.data;
      const entries = answers.map((answer) => ({ participant, batchId, ...answer }));
      const { fresh } = await recordEntryAnswers(tx, schema, entries, answeredAt);
      return fresh.length;
    }
    case 'BatchCompleted': {
      const { batchId, status, completedAt } = event.data;
      state.completions.push({ participant, batchId, status, completedAt });
      return 0;
    }
  }
}
