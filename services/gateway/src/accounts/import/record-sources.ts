import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import split2 from 'split2';
import {
  checkCsvHeader,
  csvRowToRecord,
  parseImportRecord,
  type ParsedRecord,
  type RecordError,
} from './import-record.js';

export type ImportFormat = 'ndjson' | 'csv';

/** One record of the upload, numbered from 1 (a CSV header and blank lines are not records). */
export type SourceRecord = { row: number } & ParsedRecord;

/** The upload itself is unusable (not a per-row problem): the import stops and fails with this. */
export class ImportSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportSourceError';
  }
}

/** A line or a CSV record longer than this ends the import: memory stays bounded. */
const MAX_RECORD_BYTES = 64 * 1024;

const failedRow = (row: number, error: RecordError): SourceRecord => ({ row, ok: false, error });

/**
 * The records of an upload, read as the consumer asks for them: a consumer that awaits its writes
 * pauses the parser and through it the request (backpressure), so memory does not grow with the file.
 */
export function importRecords(input: Readable, format: ImportFormat): AsyncGenerator<SourceRecord> {
  return format === 'csv' ? csvRecords(input) : ndjsonRecords(input);
}

/**
 * The input piped through a parser: an error of the input (a cut upload) ends the iteration. The input
 * itself is left open when the parser stops early, so the route can still answer on the connection.
 */
function through<T extends NodeJS.ReadWriteStream>(input: Readable, transform: T): T {
  input.once('error', (error) => (transform as unknown as Readable).destroy(error));
  input.pipe(transform);
  return transform;
}

async function* ndjsonRecords(input: Readable): AsyncGenerator<SourceRecord> {
  const lines = through(input, split2({ maxLength: MAX_RECORD_BYTES }));
  let row = 0;
  try {
    for await (const line of lines as AsyncIterable<string>) {
      if (line.trim() === '') continue;
      row += 1;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        yield failedRow(row, { field: 'row', code: 'NOT_JSON' });
        continue;
      }
      yield { row, ...parseImportRecord(raw) };
    }
  } catch (error) {
    throw sourceError(error);
  }
}

async function* csvRecords(input: Readable): AsyncGenerator<SourceRecord> {
  const parser = through(
    input,
    parseCsv({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_BYTES,
    }),
  );
  let header: string[] | undefined;
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (header === undefined) {
        header = cells.map((cell) => cell.trim());
        const problem = checkCsvHeader(header);
        if (problem !== undefined) throw new ImportSourceError(`CSV header: ${problem}`);
        continue;
      }
      row += 1;
      const mapped = csvRowToRecord(header, cells);
      yield mapped.ok ? { row, ...parseImportRecord(mapped.raw) } : failedRow(row, mapped.error);
    }
  } catch (error) {
    throw sourceError(error);
  }
}

function sourceError(error: unknown): Error {
  if (error instanceof ImportSourceError) return error;
  const code = (error as { code?: unknown }).code;
  // csv-parse names its errors by code (CSV_QUOTE_NOT_CLOSED, …); never echo the data.
  if (typeof code === 'string' && code.startsWith('CSV_'))
    return new ImportSourceError(`CSV could not be read (${code})`);
  if (error instanceof Error && /maximum buffer|maxLength/i.test(error.message))
    return new ImportSourceError('a line is longer than 64 KiB');
  return error instanceof Error ? error : new Error(String(error));
}
