import type { AccountImportRowError, AccountImportRows } from '@vop/contracts';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConcurrencyError, type EventStore, type SqlExecutor } from '@vop/event-store';
import type { AccountCopyAtCommit } from '@vop/verifications';
import { SubjectKeyDestroyedError, type FieldCipher } from '@vop/personal-data';
import { applyImportChunk, type ChunkCounts, type ImportRow } from './import-chunk.js';
import { MAX_STORED_ROW_ERRORS, recordChunk } from './import-read-model.js';
import type { SourceRecord } from './record-sources.js';

export interface ImportRunOptions {
  importId: string;
  store: EventStore;
  /** The copies of the accounts that decisions read: a record is verifiable once its chunk committed. */
  copy?: AccountCopyAtCommit;
  cipher: FieldCipher;
  clock: () => Date;
  newId: () => string;
  metadata: Record<string, string>;
  /** Rows per transaction: larger is faster, smaller holds the database for less time. */
  chunkRows: number;
  /**
   * When set, each next chunk's rows are chosen so that its transaction takes about this long,
   * from chunkRows up to maxChunkRows: a re-import's unchanged rows cost a fraction of new ones.
   */
  chunkMs?: number;
  maxChunkRows?: number;
  /**
   * After each chunk, a pause this many times as long as the chunk took (PGlite serialises every
   * statement: 1 leaves single checks at least half the database). 0: none.
   */
  pauseRatio?: number;
  /**
   * Read the next chunk while the previous one is written (PostgreSQL). Not on PGlite: a chunk's
   * transaction holds its one backend, and parsing meanwhile delays the replies it waits for.
   */
  overlap?: boolean;
  /** Called after each committed chunk with the totals so far. */
  onProgress?: (rows: AccountImportRows) => void;
}

interface Chunk {
  rows: ImportRow[];
  ibans: Set<string>;
  errors: AccountImportRowError[];
  read: number;
}

const emptyChunk = (): Chunk => ({ rows: [], ibans: new Set(), errors: [], read: 0 });

/**
 * Reads the upload record by record and applies it chunk by chunk, each chunk one transaction with
 * its counts and row errors; a row that fails is reported and the import goes on. With `overlap` the
 * next chunk is read and parsed while the previous one is written (never two written at once, so
 * chunks commit in the upload's order). Returns the totals.
 */
export async function runAccountImport(
  options: ImportRunOptions,
  records: AsyncIterable<SourceRecord>,
): Promise<AccountImportRows> {
  const totals: AccountImportRows = { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
  let storedErrors = 0;
  let chunk = emptyChunk();
  let writing: Promise<void> = Promise.resolve();
  let chunkRows = options.chunkRows;
  const { chunkMs, maxChunkRows = options.chunkRows } = options;

  async function write(current: Chunk): Promise<void> {
    const started = performance.now();
    let rows: AccountImportRows | undefined;
    // The chunk's counts and row errors are recorded in the chunk's own transaction.
    await applyChunk(options, current, async (tx, counts, conflicts) => {
      const errors = [...current.errors, ...conflicts].sort((a, b) => a.row - b.row);
      rows = { read: current.read, ...counts, failed: errors.length };
      const kept = errors.slice(0, Math.max(0, MAX_STORED_ROW_ERRORS - storedErrors));
      await recordChunk(tx, options.store.schema, options.importId, rows, kept);
      return kept.length;
    }).then((kept) => (storedErrors += kept));
    options.copy?.committed();
    const committed = rows as AccountImportRows;
    for (const key of Object.keys(totals) as (keyof AccountImportRows)[])
      totals[key] += committed[key];
    options.onProgress?.({ ...totals });
    const took = performance.now() - started;
    if (chunkMs !== undefined) {
      const fitting = Math.round((current.read * chunkMs) / Math.max(took, 1));
      chunkRows = Math.min(maxChunkRows, Math.max(options.chunkRows, fitting));
    }
    const pause = took * (options.pauseRatio ?? 0);
    if (pause > 0) await sleep(pause);
  }

  /** Waits for the chunk being written, then starts writing this one (a failure surfaces at the next wait). */
  async function flush(): Promise<void> {
    if (chunk.read === 0) return;
    const current = chunk;
    chunk = emptyChunk();
    await writing;
    writing = write(current);
    // Awaited by the next flush or at the end; until then a rejection is not unhandled.
    writing.catch(() => undefined);
    if (options.overlap !== true) await writing;
  }

  try {
    for await (const record of records) {
      // Two rows of one IBAN in one chunk: the earlier one is applied first.
      if (record.ok && chunk.ibans.has(record.record.iban)) await flush();
      chunk.read += 1;
      if (record.ok) {
        chunk.rows.push({ row: record.row, record: record.record });
        chunk.ibans.add(record.record.iban);
      } else chunk.errors.push({ row: record.row, ...record.error });
      if (chunk.read >= chunkRows) await flush();
    }
    await flush();
  } finally {
    // The chunk being written ends (commits or fails) before the import is answered.
    await writing;
  }
  return totals;
}

/**
 * Another writer in the way: a stream or a unique index (23505), or a deadlock (40P01) with a copy of
 * the accounts' consumer applying earlier events of the chunk's accounts: the chunk goes row by row.
 */
const isConflict = (error: unknown): boolean =>
  error instanceof ConcurrencyError ||
  ['23505', '40P01'].includes(String((error as { code?: unknown }).code));

type RecordChunk = (
  tx: SqlExecutor,
  counts: ChunkCounts,
  conflicts: AccountImportRowError[],
) => Promise<number>;

/**
 * One transaction for the chunk; should another writer have touched one of its accounts meanwhile
 * (a conflict), each row again in a transaction of its own, and a row still in conflict is reported.
 */
async function applyChunk(
  options: ImportRunOptions,
  chunk: Chunk,
  record: RecordChunk,
): Promise<number> {
  const { store } = options;
  const writer = () => ({
    store,
    ...(options.copy && { copy: options.copy }),
    cipher: options.cipher,
    metadata: options.metadata,
    now: options.clock().toISOString(),
    newId: options.newId,
  });
  try {
    return await store.sql.transaction(async (tx) =>
      record(tx, await applyImportChunk(writer(), chunk.rows, tx), []),
    );
  } catch (error) {
    if (!isConflict(error) && !(error instanceof SubjectKeyDestroyedError)) throw error;
  }
  const counts: ChunkCounts = { created: 0, updated: 0, unchanged: 0 };
  const conflicts: AccountImportRowError[] = [];
  for (const row of chunk.rows) {
    try {
      const one = await store.sql.transaction((tx) => applyImportChunk(writer(), [row], tx));
      for (const key of Object.keys(counts) as (keyof ChunkCounts)[]) counts[key] += one[key];
    } catch (error) {
      if (error instanceof SubjectKeyDestroyedError)
        conflicts.push({ row: row.row, field: 'iban', code: 'ERASED' });
      else if (isConflict(error)) conflicts.push({ row: row.row, field: 'iban', code: 'CONFLICT' });
      else throw error;
    }
  }
  return store.sql.transaction((tx) => record(tx, counts, conflicts));
}
