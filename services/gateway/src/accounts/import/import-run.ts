import type { AccountImportRowError, AccountImportRows } from '@vop/contracts';
import type { PriorityGate } from '@vop/messaging';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConcurrencyError, type EventStore, pipelined, type SqlExecutor } from '@vop/event-store';
import type { AccountCopyAtCommit } from '@vop/verifications';
import {
  ACCOUNT_FINGERPRINT_SUBJECT,
  SubjectKeyDestroyedError,
  SubjectKeyRaceError,
  type FieldCipher,
} from '@vop/personal-data';
import {
  applyImportChunk,
  type ChunkCounts,
  type ChunkLookUp,
  digestLines,
  lookUpAccounts,
  type ChunkWriter,
  type ImportRow,
  type PreparedChunk,
  prepareImportChunk,
  writePreparedChunk,
} from './import-chunk.js';
import { MAX_STORED_ROW_ERRORS, recordChunk } from './import-read-model.js';
import type { SourceRecord } from './record-sources.js';
import type { ImportPacer } from './import-pacer.js';
import { TimeSlice } from './time-slice.js';
import { whileWaiting } from './while-waiting.js';

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
   * Single checks first: while they come, a further rest after each chunk by what they take
   * (`import-pacer.ts`), and (with chunkMs) chunks sized to take about `checksChunkMs`.
   */
  pacer?: Pick<ImportPacer, 'checksActive' | 'restAfter'>;
  checksChunkMs?: number;
  /**
   * Read and prepare the next chunk (decided, encrypted, its statements built) while the previous
   * one is written (PostgreSQL): the database writes one chunk while this thread makes the next. Not
   * on PGlite: a chunk's transaction holds its one backend, and reads meanwhile wait for it. There a
   * chunk's accounts are looked up while the chunk before is decided and the next one is read (the
   * look-ahead), before the chunk before is written unless the two share an IBAN, and it is decided
   * and sealed while the chunk before is written (its new holders' keys made ahead, import-chunk.ts).
   */
  overlap?: boolean;
  /**
   * Longest the import's own work on this thread runs without a turn for anything else (a single check
   * waits at most this long for it); default DEFAULT_SLICE_MS.
   */
  sliceMs?: number;
  /**
   * Single checks first: each chunk is written as one low-priority unit of the gate, and the work of
   * reading and preparing waits at each slice for the single checks in flight (at most its maxWaitMs).
   */
  gate?: PriorityGate;
  /** Called after each committed chunk with the totals so far. */
  onProgress?: (rows: AccountImportRows) => void;
}

/** A slice short beside a single check's idle p99 (bench/RESULTS.md §5), long beside a turn's cost. */
export const DEFAULT_SLICE_MS = 4;
/** The fewest rows of a chunk sized by its time beside single checks: a chunk's fixed costs stay small. */
const LEAST_ROWS_BESIDE_CHECKS = 10;

interface Chunk {
  rows: ImportRow[];
  ibans: Set<string>;
  errors: AccountImportRowError[];
  read: number;
}

const emptyChunk = (): Chunk => ({ rows: [], ibans: new Set(), errors: [], read: 0 });

/**
 * Reads the upload's records, in the batches they come in, and applies them chunk by chunk, each
 * chunk one transaction with its counts and row errors; a row that fails is reported and the import
 * goes on. With `overlap` the next chunk is read, parsed and prepared while the previous one is
 * written; without, only its look-up runs while the next one is read. Never two are written at once,
 * so chunks commit in the upload's order. Returns the totals.
 */
export async function runAccountImport(
  options: ImportRunOptions,
  batches: AsyncIterable<readonly SourceRecord[]>,
): Promise<AccountImportRows> {
  const totals: AccountImportRows = { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
  let storedErrors = 0;
  let chunk = emptyChunk();
  let inFlight = new Set<string>();
  // Slices on PGlite too: a chunk's transaction there waits for this thread's turn to be committed,
  // and a long chunk's preparing held it (bench/RESULTS.md §5, the two threads no longer take turns).
  const slice = new TimeSlice(options.sliceMs ?? DEFAULT_SLICE_MS, options.gate);
  let writing: Promise<void> = Promise.resolve();
  let chunkRows = options.chunkRows;
  const { chunkMs, maxChunkRows = options.chunkRows } = options;
  /** Whether chunkRows was last sized beside single checks (by a chunk's time while they came). */
  let sizedBesideChecks = false;
  /**
   * Whether the chunk being read is full. Once single checks come, a chunk sized without them (the
   * first, or one of a quiet spell's) is cut at the least rows: the first chunks beside checks are the
   * ones that size the rest. Cut at the quiet size (1,000 rows on PostgreSQL), the two chunks an import
   * began with, one written and one prepared, held the checks of its first two seconds at p50 63-107 ms
   * (bench/RESULTS.md §5, "Checks first, then the import").
   */
  const chunkFull = (): boolean =>
    chunk.read >= chunkRows ||
    (chunkMs !== undefined &&
      !sizedBesideChecks &&
      chunk.read >= LEAST_ROWS_BESIDE_CHECKS &&
      options.pacer?.checksActive() === true);
  // The deployment's key is never destroyed: read (or made) once, outside any chunk's transaction.
  const fingerprintDigest = await options.cipher.digesterFor(ACCOUNT_FINGERPRINT_SUBJECT);
  const writer = (): ChunkWriter => chunkWriter(options, fingerprintDigest);
  /** Without overlap: the chunk read last, its accounts being looked up while the next is read. */
  let ahead: { chunk: Chunk; lookUp: ChunkLookUp } | undefined;

  /** Writes the chunk; how long its transaction took (ms). */
  async function write(current: Chunk, prepared: Promise<PreparedChunk>): Promise<number> {
    // A chunk is sized and rested by its transaction's time, not by its preparing (a failed one is
    // handled in applyChunk).
    await prepared.catch(() => undefined);
    const started = performance.now();
    let rows: AccountImportRows | undefined;
    // The chunk's counts and row errors are recorded in the chunk's own transaction.
    await applyChunk(options.store, writer, current, prepared, async (tx, counts, conflicts) => {
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
      // Beside single checks a chunk is short: each one's work goes on through every process
      // (relay, Kafka, the copies), and a long one reaches them all as one burst.
      const besideChecks = options.pacer?.checksActive() === true;
      const target = besideChecks ? (options.checksChunkMs ?? chunkMs) : chunkMs;
      const least = besideChecks ? LEAST_ROWS_BESIDE_CHECKS : options.chunkRows;
      const fitting = Math.round((current.read * target) / Math.max(took, 1));
      chunkRows = Math.min(maxChunkRows, Math.max(least, fitting));
      sizedBesideChecks = besideChecks;
    }
    return took;
  }

  /** After a chunk, the rest that leaves the database and the cores to single checks. */
  async function rest(took: number): Promise<void> {
    const pause = options.pacer?.restAfter(took) ?? 0;
    if (pause > 0) await sleep(pause);
  }

  /** Starts writing a prepared chunk once the one before is written (a failure surfaces at the next wait). */
  async function startWriting(current: Chunk, prepared: Promise<PreparedChunk>): Promise<void> {
    // Awaited in write(); a failure there sends the chunk row by row.
    prepared.catch(() => undefined);
    await writing;
    inFlight = current.ibans;
    const { gate } = options;
    // The rest is outside the gate's unit: the gate's own share counts only the chunk's writing.
    writing = (gate ? gate.low(() => write(current, prepared)) : write(current, prepared)).then(
      rest,
    );
    // Awaited by the next flush or at the end; until then a rejection is not unhandled.
    writing.catch(() => undefined);
  }

  /**
   * Prepares this chunk outside any transaction (its transaction only writes), waits for the chunk
   * being written, then starts writing this one. With `overlap` this one is prepared while the previous
   * one is written, unless it holds an IBAN of that chunk: it is then prepared once that one committed,
   * so it sees that chunk's accounts. Without, the chunk is looked up ahead (lookAhead).
   */
  async function flush(): Promise<void> {
    if (chunk.read === 0) return;
    const current = chunk;
    chunk = emptyChunk();
    if (options.overlap !== true) return lookAhead(current);
    // The chunk being written may still be uncommitted: a chunk of its IBANs waits for it.
    if (sharesAnIban(current.ibans, inFlight)) await writing;
    await startWriting(
      current,
      prepareImportChunk({ ...writer(), slice }, current.rows, options.store.sql),
    );
  }

  /**
   * Without overlap (PGlite, one backend: a chunk's look-up would wait for the transaction before it).
   * This chunk's look-up is sent first, and runs on PGlite's thread while this thread decides the chunk
   * before, hashes this chunk's lines and reads the next chunk; the chunk before is written after the
   * look-up, and this thread does not wait for that commit (the next chunk's writing does). A chunk
   * holding an IBAN of a chunk not yet committed is looked up once that one committed, so it sees it.
   * Before, the look-up started after the chunk before committed, and new records' decisions and
   * encryption took turns with their writes (bench/RESULTS.md §5, a chunk's look-up sent before the chunk
   * before is written). When the upload has nothing more for now, the chunk is written at once
   * (whileWaiting): started, not awaited.
   */
  async function lookAhead(current: Chunk): Promise<void> {
    if (ahead !== undefined && sharesAnIban(current.ibans, ahead.chunk.ibans)) await writeAhead();
    else if (sharesAnIban(current.ibans, inFlight)) await writing;
    const live = lookUpAccounts(options.store.sql, options.store.schema, current.rows);
    live.catch(() => undefined);
    await startAhead();
    const lineDigests = await digestLines({ fingerprintDigest, slice }, current.rows);
    ahead = { chunk: current, lookUp: { lineDigests, live } };
    // Beside single checks a chunk is written at once, so the next one is sized by their pace (write()).
    if (options.pacer?.checksActive() === true) await writeAhead();
  }

  /** Decides the chunk looked up ahead, if any, and starts writing it once the chunk before is written. */
  async function startAhead(): Promise<void> {
    if (ahead === undefined) return;
    const { chunk: current, lookUp } = ahead;
    ahead = undefined;
    await startWriting(
      current,
      prepareImportChunk({ ...writer(), slice }, current.rows, options.store.sql, lookUp),
    );
  }

  /** Decides and writes the chunk looked up ahead, if any, and waits until it is written. */
  async function writeAhead(): Promise<void> {
    if (ahead === undefined) return;
    await startAhead();
    await writing;
  }

  let failed = false;
  try {
    // Started, not awaited: waiting for its commit as well drained PGlite's queue each time the upload
    // had nothing buffered, and the thread then idled while this one read and prepared the next chunk.
    const reading = whileWaiting(batches, () => (ahead === undefined ? undefined : startAhead));
    for await (const batch of reading)
      for (const record of batch) {
        const iban =
          record.ok === true ? record.record.iban : record.ok === false ? undefined : record.iban;
        // Two rows of one IBAN in one chunk: the earlier one is applied first.
        if (iban !== undefined && chunk.ibans.has(iban)) await flush();
        chunk.read += 1;
        if (record.ok === false) chunk.errors.push({ row: record.row, ...record.error });
        else {
          chunk.rows.push(
            record.ok === true
              ? { row: record.row, iban: record.record.iban, record: record.record }
              : { row: record.row, iban: record.iban, line: record },
          );
          chunk.ibans.add(record.ok === true ? record.record.iban : record.iban);
        }
        if (chunkFull()) await flush();
        else if (slice.due()) await slice.pass();
      }
    await flush();
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    // The chunk looked up ahead is written here, the last one or (the upload failed after it) one read
    // whole, as each one before it; the chunk being written ends before the import is answered.
    const written = writeAhead().finally(() => writing);
    // After a failure (a cut upload, say) that failure is the import's: the totals hold only what
    // committed, and a failure to write the chunk read before it must not replace the reason.
    await (failed ? written.catch(() => undefined) : written);
  }
  return totals;
}

/** Whether a chunk of `ibans` holds an IBAN of `other`: it is looked up or prepared once `other` committed. */
const sharesAnIban = (ibans: ReadonlySet<string>, other: ReadonlySet<string>): boolean =>
  [...ibans].some((iban) => other.has(iban));

/**
 * Another writer in the way: a stream or a unique index (23505), a new holder's key made by another
 * writer first, or a deadlock (40P01) with a copy of the accounts' consumer applying earlier events of
 * the chunk's accounts: the chunk goes row by row.
 */
const isConflict = (error: unknown): boolean =>
  error instanceof ConcurrencyError ||
  error instanceof SubjectKeyRaceError ||
  ['23505', '40P01'].includes(String((error as { code?: unknown }).code));

const chunkWriter = (
  options: ImportRunOptions,
  fingerprintDigest: ChunkWriter['fingerprintDigest'],
): ChunkWriter => ({
  store: options.store,
  ...(options.copy && { copy: options.copy }),
  cipher: options.cipher,
  fingerprintDigest,
  metadata: options.metadata,
  now: options.clock().toISOString(),
  newId: options.newId,
});

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
  store: EventStore,
  writer: () => ChunkWriter,
  chunk: Chunk,
  prepared: Promise<PreparedChunk>,
  record: RecordChunk,
): Promise<number> {
  try {
    const ready = await prepared;
    return await store.sql.transaction(async (tx) => {
      // Its counts are known before it is written: recorded beside its writes, not after them (on
      // PGlite's thread, a statement sent after the writes waits for this thread's next turn).
      const recorded = record(tx, ready.counts, ready.errors);
      await pipelined([writePreparedChunk(writer(), ready, tx), recorded]);
      return recorded;
    });
  } catch (error) {
    if (!isConflict(error) && !(error instanceof SubjectKeyDestroyedError)) throw error;
  }
  const counts: ChunkCounts = { created: 0, updated: 0, unchanged: 0 };
  const conflicts: AccountImportRowError[] = [];
  for (const row of chunk.rows) {
    try {
      const one = await store.sql.transaction((tx) => applyImportChunk(writer(), [row], tx));
      for (const key of Object.keys(counts) as (keyof ChunkCounts)[])
        counts[key] += one.counts[key];
      conflicts.push(...one.errors);
    } catch (error) {
      if (error instanceof SubjectKeyDestroyedError)
        conflicts.push({ row: row.row, field: 'iban', code: 'ERASED' });
      else if (isConflict(error)) conflicts.push({ row: row.row, field: 'iban', code: 'CONFLICT' });
      else throw error;
    }
  }
  return store.sql.transaction((tx) => record(tx, counts, conflicts));
}
