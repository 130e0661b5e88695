import type { VerificationRequestedData, VerificationEnd } from '@vop/contracts';
import { schemaMigration, type EventStore, type SqlExecutor } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Logger } from '@vop/observability';
import { IdlePoll } from '@vop/outbox';
import { entryStreams, type DecideEntries, type DecidedEntries } from './entry-decisions.js';
import { insertBatchEntries } from './status-read-model.js';

/**
 * A big batch's fan-out in small transactions. The submission's transaction records the batch, its
 * first chunk of verification requests and the rest staged (their typed names already encrypted) in
 * `batch_fan_out`, a few rows of many requests each; the fan-out then turns one chunk at a time into
 * the entries' VerificationRequested streams (and, form 2, their entry rows), moving the row's
 * cursor (`done`) or deleting it in the same transaction. So the batch is accepted whole or not at
 * all, and no transaction of it holds the one PGlite connection of the embedded run for long (single
 * checks wait behind one chunk, not 10,000 entries). A process killed mid fan-out leaves the rest
 * staged for the next one.
 */
export const migrateFanOut = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.batch_fan_out (
         id bigserial PRIMARY KEY,
         participant text NOT NULL,
         batch_id text NOT NULL,
         entry_offset integer NOT NULL,
         entry_ids text,
         requests text NOT NULL,
         done integer NOT NULL DEFAULT 0
       )`,
  `CREATE INDEX IF NOT EXISTS batch_fan_out_batch
       ON ${schema}.batch_fan_out (participant, batch_id, id)`,
]);

/** Staged requests per row: few rows to write at submission, small enough to read per chunk. */
export const STAGED_PER_ROW = 1000;

export interface StagedRequests {
  /** The entries' number before this row's first (form 2 entry rows are numbered on from it). */
  entryOffset: number;
  /** Form 2: the entries' ids, whose rows the chunk inserts; form 1 numbered its entries already. */
  entryIds?: string[];
  requests: VerificationRequestedData[];
}

/** In the submission's transaction: the requests after the first chunk, fanned out in this order. */
export async function stageRequests(
  tx: SqlExecutor,
  schema: string,
  batch: { participant: string; batchId: string },
  rows: StagedRequests[],
): Promise<void> {
  // Text, not jsonb, one row a statement: the database keeps each as it is, and parses nothing.
  for (const row of rows)
    await tx.query(
      `INSERT INTO ${schema}.batch_fan_out (participant, batch_id, entry_offset, entry_ids, requests)
       VALUES ($1, $2, $3, $4, $5)`,
      [
        batch.participant,
        batch.batchId,
        row.entryOffset,
        row.entryIds === undefined ? null : JSON.stringify(row.entryIds),
        JSON.stringify(row.requests),
      ],
    );
}

/**
 * The entries' requests as new streams, as the submission writes its first chunk; a request decided
 * before the transaction (`decided`) has its end after it in its stream. Returns those ends.
 */
export async function recordRequests(
  tx: SqlExecutor,
  store: EventStore,
  batchId: string,
  requests: readonly VerificationRequestedData[],
  decided?: DecidedEntries,
): Promise<VerificationEnd[]> {
  const { streams, ends } = entryStreams(batchId, requests, decided);
  await store.startStreamsCounted(streams, { tx });
  return ends;
}

interface StagedRow {
  id: string;
  participant: string;
  batch_id: string;
  entry_offset: number;
  entry_ids: string | null;
  requests: string;
  done: number;
}

/** What the fan-out does with a chunk's ends, in its transaction (answers the entries); how many. */
export type AnswerEnds = (tx: SqlExecutor, ends: VerificationEnd[]) => Promise<number>;

/** An idle batch service's look for chunks left behind: submissions here wake the fan-out at once. */
const SLOWEST_POLL_MS = 30_000;

const NEXT_CHUNK = (schema: string, lock: boolean) =>
  `SELECT f.id, f.participant, f.batch_id, f.entry_offset, f.entry_ids, f.requests, f.done
     FROM ${schema}.batch_fan_out AS f
    WHERE NOT EXISTS (SELECT 1 FROM ${schema}.batch_fan_out AS p
                       WHERE p.participant = f.participant AND p.batch_id = f.batch_id
                         AND p.id < f.id)
    ORDER BY f.id
    LIMIT 1${lock ? '\n    FOR UPDATE SKIP LOCKED' : ''}`;

/**
 * Fans out the next `chunkSize` requests of the oldest staged row no other instance holds, if it is
 * the first left of its batch (one batch's requests go in order, so the store holds its entries in
 * submission order, as the rebuild reads them). With `decide`, the chunk is read first and decided
 * outside the transaction, which records it only if no other instance moved the row meanwhile, with
 * the ends, and answers the entries there (`answer`). Returns how many entries it answered, or
 * undefined when nothing is staged.
 */
export async function fanOutOneChunk(
  store: EventStore,
  chunkSize: number,
  decisions?: { decide: DecideEntries; answer: AnswerEnds },
): Promise<{ answered: number } | undefined> {
  const { schema } = store;
  let decided: { id: string; done: number; entries: DecidedEntries } | undefined;
  if (decisions) {
    const peeked = (await store.sql.query<StagedRow>(NEXT_CHUNK(schema, false))).rows[0];
    if (peeked === undefined) return undefined;
    const requests = JSON.parse(peeked.requests) as VerificationRequestedData[];
    decided = {
      id: peeked.id,
      done: peeked.done,
      entries: await decisions.decide(
        peeked.batch_id,
        requests.slice(peeked.done, peeked.done + chunkSize),
      ),
    };
  }
  return store.sql.transaction(async (tx) => {
    const { rows } = await tx.query<StagedRow>(NEXT_CHUNK(schema, true));
    const row = rows[0];
    if (row === undefined) return undefined;
    // Another instance fanned out that chunk meanwhile: this one is taken undecided (matching decides it).
    const ends =
      decided !== undefined && decided.id === row.id && decided.done === row.done
        ? decided.entries
        : undefined;
    const requests = JSON.parse(row.requests) as VerificationRequestedData[];
    const end = row.done + chunkSize;
    const recordedEnds = await recordRequests(
      tx,
      store,
      row.batch_id,
      requests.slice(row.done, end),
      ends,
    );
    if (row.entry_ids !== null)
      await insertBatchEntries(
        tx,
        schema,
        { participant: row.participant, batchId: row.batch_id },
        (JSON.parse(row.entry_ids) as string[]).slice(row.done, end),
        row.entry_offset + row.done,
      );
    if (end >= requests.length)
      await tx.query(`DELETE FROM ${schema}.batch_fan_out WHERE id = $1`, [row.id]);
    else
      await tx.query(`UPDATE ${schema}.batch_fan_out SET done = $2 WHERE id = $1`, [row.id, end]);
    const answered =
      decisions && recordedEnds.length > 0 ? await decisions.answer(tx, recordedEnds) : 0;
    return { answered };
  });
}

export interface FanOutWorker {
  /** Fans out what is staged now (after a submission); a call while it runs makes it look again. */
  wake(): void;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Drains the staged chunks one transaction at a time, each through `runUnit` (embedded: the priority
 * gate's low side, so single checks come first). Woken by submissions; a poll finds chunks another
 * instance left behind when it died (or a failed drain left): every `pollMs` after work or a failure,
 * doubling while it finds nothing, up to `slowestPollMs`.
 */
export function fanOutWorker(options: {
  store: EventStore;
  logger: Logger;
  /** Requests per transaction. */
  chunkSize: number;
  runUnit?: <T>(work: () => Promise<T>) => Promise<T>;
  pollMs?: number;
  slowestPollMs?: number;
  /** Entries decided where they are recorded (entry-decisions.ts), answered in the chunk's transaction. */
  decisions?: { decide: DecideEntries; answer: AnswerEnds };
  /** After a chunk's transaction committed: how many entries its recorded ends answered. */
  onEntriesAnswered?: (answered: number) => void;
}): FanOutWorker {
  const { store, logger } = options;
  const fanOutFailed = loopFailureLog(logger, 'batch fan-out failed; retrying at the next poll');
  const runUnit = options.runUnit ?? ((work) => work());
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  const pollMs = options.pollMs ?? 1000;
  const poll = new IdlePoll(pollMs, Math.max(pollMs, options.slowestPollMs ?? SLOWEST_POLL_MS));

  /** Resolves true when it fanned out a chunk. */
  async function drain(): Promise<boolean> {
    let found = false;
    do {
      again = false;
      while (!stopped) {
        const chunk = await runUnit(() =>
          fanOutOneChunk(store, options.chunkSize, options.decisions),
        );
        if (chunk === undefined) break;
        found = true;
        if (chunk.answered > 0) options.onEntriesAnswered?.(chunk.answered);
      }
    } while (again && !stopped);
    return found;
  }

  function armPoll(): void {
    clearTimeout(timer);
    timer = setTimeout(wake, poll.next());
    timer.unref();
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .then(
        (found) => {
          if (found) poll.snapBack();
        },
        (error: unknown) => {
          poll.snapBack();
          fanOutFailed(error);
        },
      )
      .finally(() => {
        running = undefined;
        if (!stopped) armPoll();
      });
  }

  return {
    wake,
    start() {
      stopped = false;
      wake();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
