import type { AccountImportRowError, AccountImportRows } from '@vop/contracts';
import { ConcurrencyError, type EventStore } from '@vop/event-store';
import { SubjectKeyDestroyedError, type FieldCipher } from '@vop/personal-data';
import { applyImportChunk, type ChunkCounts, type ImportRow } from './import-chunk.js';
import { MAX_STORED_ROW_ERRORS, recordChunk } from './import-read-model.js';
import type { SourceRecord } from './record-sources.js';

export interface ImportRunOptions {
  importId: string;
  store: EventStore;
  cipher: FieldCipher;
  clock: () => Date;
  newId: () => string;
  metadata: Record<string, string>;
  /** Rows per transaction: larger is faster, smaller holds the database for less time. */
  chunkRows: number;
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
 * its counts and row errors; a row that fails is reported and the import goes on. Returns the totals.
 */
export async function runAccountImport(
  options: ImportRunOptions,
  records: AsyncIterable<SourceRecord>,
): Promise<AccountImportRows> {
  const totals: AccountImportRows = { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
  let storedErrors = 0;
  let chunk = emptyChunk();

  async function flush(): Promise<void> {
    if (chunk.read === 0) return;
    const current = chunk;
    chunk = emptyChunk();
    const { counts, conflicts } = await applyChunk(options, current);
    const errors = [...current.errors, ...conflicts].sort((a, b) => a.row - b.row);
    const rows: AccountImportRows = {
      read: current.read,
      ...counts,
      failed: errors.length,
    };
    const kept = errors.slice(0, Math.max(0, MAX_STORED_ROW_ERRORS - storedErrors));
    storedErrors += kept.length;
    await recordChunk(options.store.sql, options.store.schema, options.importId, rows, kept);
    for (const key of Object.keys(totals) as (keyof AccountImportRows)[]) totals[key] += rows[key];
    options.onProgress?.({ ...totals });
  }

  for await (const record of records) {
    // Two rows of one IBAN in one chunk: the earlier one is applied first.
    if (record.ok && chunk.ibans.has(record.record.iban)) await flush();
    chunk.read += 1;
    if (record.ok) {
      chunk.rows.push({ row: record.row, record: record.record });
      chunk.ibans.add(record.record.iban);
    } else chunk.errors.push({ row: record.row, ...record.error });
    if (chunk.read >= options.chunkRows) await flush();
  }
  await flush();
  return totals;
}

const isConflict = (error: unknown): boolean =>
  error instanceof ConcurrencyError || (error as { code?: unknown }).code === '23505';

/**
 * One transaction for the chunk; should another writer have touched one of its accounts meanwhile
 * (a conflict), each row again in a transaction of its own, and a row still in conflict is reported.
 */
async function applyChunk(
  options: ImportRunOptions,
  chunk: Chunk,
): Promise<{ counts: ChunkCounts; conflicts: AccountImportRowError[] }> {
  const { store } = options;
  const writer = () => ({
    store,
    cipher: options.cipher,
    metadata: options.metadata,
    now: options.clock().toISOString(),
    newId: options.newId,
  });
  try {
    const counts = await store.sql.transaction((tx) => applyImportChunk(writer(), chunk.rows, tx));
    return { counts, conflicts: [] };
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
  return { counts, conflicts };
}
