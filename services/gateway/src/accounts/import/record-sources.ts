import { PassThrough, Transform, type Readable } from 'node:stream';
import { MAX_IMPORT_RECORD_BYTES, RecordSplitter } from '@vop/contracts';
import { parse as parseCsv } from 'csv-parse';
import { jsonTextHazard } from '@vop/http';
import {
  checkCsvHeader,
  csvRowToRecord,
  parseImportRecord,
  type ParsedRecord,
  type RecordError,
} from './import-record.js';

export type ImportFormat = 'ndjson' | 'csv';

/**
 * An NDJSON line read but not yet validated: the nightly file's unchanged lines are recognised by a
 * keyed digest of their text (import-chunk.ts) and need no more; any other is validated then.
 */
export interface UnvalidatedLine {
  ok: 'unvalidated';
  /** The line's `iban`, already in electronic form (else the line is validated at once). */
  iban: string;
  text: string;
  validate: () => ParsedRecord;
}

/** One record of the upload, numbered from 1 (a CSV header and blank lines are not records). */
export type SourceRecord = { row: number } & (ParsedRecord | UnvalidatedLine);

/** The upload itself is unusable (not a per-row problem): the import stops and fails with this. */
export class ImportSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportSourceError';
  }
}

const failedRow = (row: number, error: RecordError): SourceRecord => ({ row, ok: false, error });

/**
 * A line (NDJSON) or record (CSV) longer than MAX_IMPORT_RECORD_BYTES ends the import when its bound
 * is passed, before the rest of it is held or parsed: memory and CPU stay bounded whatever the upload.
 */
const tooLong = (line: number): ImportSourceError =>
  new ImportSourceError(
    `the record on line ${line} is longer than a record may be (${MAX_IMPORT_RECORD_BYTES} bytes)`,
  );

/**
 * The records of an upload, read as the consumer asks for them: a consumer that awaits its writes
 * pauses the parser and through it the request (backpressure), so memory does not grow with the file.
 * They come in batches, the records of each piece of the upload as it arrived: one turn of the
 * iteration per record cost the nightly file a sixth of its time (bench/RESULTS.md §5).
 */
export function importRecords(
  input: Readable,
  format: ImportFormat,
): AsyncGenerator<SourceRecord[]> {
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

/**
 * One line's record: blank lines are no record; a line that is not JSON, or holds a key twice in one
 * object (JSON.parse would keep the last: hostile-input.ts), or nests too deep, is a failed row.
 */
function lineRecord(row: number, line: string, bytes: Buffer): SourceRecord {
  const leading = LEADING_IBAN.exec(line)?.[1];
  // Parsed now only to find the IBAN; a line whose IBAN leads is parsed only if it is validated.
  const raw = leading === undefined ? parsedOrUndefined(line) : undefined;
  const iban = leading ?? electronicIbanOf(raw);
  if (iban === undefined) return { row, ...validatedLine(bytes, raw) };
  const validate = () =>
    sameIban(iban, validatedLine(bytes, leading === undefined ? raw : parsedOrUndefined(line)));
  return { row, ok: 'unvalidated', iban, text: line, validate };
}

/** An IBAN as the contract's transform leaves it (no spaces, capitals): the form accounts are kept in. */
const ELECTRONIC_IBAN = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/;

/**
 * A line whose first key is `iban`, in electronic form and without escapes: its IBAN is read without
 * parsing the line (a nightly file's unchanged lines are not parsed at all). The first key of the
 * outermost object is the record's own, and a valid line has it once (a second is DUPLICATE_KEY), so a
 * valid line's record holds this IBAN; sameIban still refuses one that does not.
 */
const LEADING_IBAN = /^\s*\{\s*"iban"\s*:\s*"([A-Z]{2}[0-9]{2}[A-Z0-9]{1,30})"/;

/** What JSON.parse makes of the line; undefined when it is not JSON (JSON never parses to undefined). */
function parsedOrUndefined(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function electronicIbanOf(raw: unknown): string | undefined {
  const iban = (raw as { iban?: unknown } | null | undefined)?.iban;
  return typeof iban === 'string' && ELECTRONIC_IBAN.test(iban) ? iban : undefined;
}

/** A record read under one IBAN must hold that IBAN: the row was grouped and looked up by it. */
function sameIban(iban: string, parsed: ParsedRecord): ParsedRecord {
  return parsed.ok && parsed.record.iban !== iban
    ? { ok: false, error: { field: 'iban', code: 'INVALID_IBAN' } }
    : parsed;
}

/** A line checked whole: its JSON's hazards (`raw`: what JSON.parse made of it, if it could), then the contract. */
function validatedLine(bytes: Buffer, raw: unknown): ParsedRecord {
  const hazard = jsonTextHazard(bytes);
  if (hazard?.reason === 'DUPLICATE_KEY')
    return { ok: false, error: { field: hazard.path, code: 'DUPLICATE_KEY' } };
  if (hazard?.reason === 'TOO_DEEP')
    return { ok: false, error: { field: 'row', code: 'NOT_A_RECORD' } };
  if (raw === undefined) return { ok: false, error: { field: 'row', code: 'NOT_JSON' } };
  return parseImportRecord(raw);
}

/** Lines are cut from the bytes (a line feed is never inside a UTF-8 character), then decoded. */
async function* ndjsonRecords(input: Readable): AsyncGenerator<SourceRecord[]> {
  const splitter = new RecordSplitter('ndjson', MAX_IMPORT_RECORD_BYTES);
  let pending: Buffer[] = [];
  let row = 0;
  const next = (bytes: Buffer): SourceRecord | undefined => {
    const line = bytes.toString('utf8');
    return line.trim() === '' ? undefined : lineRecord((row += 1), line, bytes);
  };
  try {
    for await (const chunk of through(input, new PassThrough()) as AsyncIterable<Buffer>) {
      const { ends, tooLongAtLine } = splitter.scan(chunk);
      const batch: SourceRecord[] = [];
      let from = 0;
      for (const end of ends) {
        const bytes = chunk.subarray(from, end - 1);
        const record = next(pending.length === 0 ? bytes : Buffer.concat([...pending, bytes]));
        pending = [];
        from = end;
        if (record) batch.push(record);
      }
      if (batch.length > 0) yield batch;
      if (tooLongAtLine !== undefined) throw tooLong(tooLongAtLine);
      if (from < chunk.length) pending.push(chunk.subarray(from));
    }
    const last = next(Buffer.concat(pending));
    if (last) yield [last];
  } catch (error) {
    throw sourceError(error);
  }
}

/** CSV bytes passed on to the parser until a record is longer than its bound. */
function csvRecordBound(): Transform {
  const splitter = new RecordSplitter('csv', MAX_IMPORT_RECORD_BYTES);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const { tooLongAtLine } = splitter.scan(chunk);
      callback(tooLongAtLine === undefined ? null : tooLong(tooLongAtLine), chunk);
    },
  });
}

async function* csvRecords(input: Readable): AsyncGenerator<SourceRecord[]> {
  const parser = through(
    through(input, csvRecordBound()),
    parseCsv({ bom: true, relax_column_count: true, skip_empty_lines: true }),
  );
  let header: string[] | undefined;
  let row = 0;
  let batch: SourceRecord[] = [];
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
      batch.push(
        mapped.ok ? { row, ...parseImportRecord(mapped.raw) } : failedRow(row, mapped.error),
      );
      // A batch is what the parser holds parsed; it never waits for records not yet arrived.
      if (parser.readableLength === 0) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    // The document's pattern: a CSV upload starts with its header line, so an empty one is no file of ours.
    if (header === undefined)
      throw new ImportSourceError(
        'CSV header: the upload is empty; its first line must be the header',
      );
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
  return error instanceof Error ? error : new Error(String(error));
}
