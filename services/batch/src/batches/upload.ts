import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MAX_BATCH_ENTRIES, MAX_BATCH_ENTRY_BYTES, RecordSplitter } from '@vop/contracts';
import { ApiError, jsonTextHazard, MAX_JSON_DEPTH } from '@vop/http';
import { parse as parseCsv } from 'csv-parse';
import parserStream from 'stream-json';
import Assembler from 'stream-json/assembler.js';
import { JsonEntryBound } from './json-entry-bound.js';

/** Ten thousand entries with long names fit; anything beyond is refused before it is read whole. */
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

export const tooManyEntries = (): ApiError =>
  new ApiError(413, 'BATCH_TOO_LARGE', `A batch holds at most ${MAX_BATCH_ENTRIES} verifications`, {
    action: `Split the file into batches of at most ${MAX_BATCH_ENTRIES} verifications and submit each`,
  });

const tooManyBytes = (): ApiError =>
  new ApiError(413, 'BATCH_TOO_LARGE', `A batch upload holds at most ${MAX_UPLOAD_BYTES} bytes`, {
    action: `Split the file into batches of at most ${MAX_BATCH_ENTRIES} verifications and submit each`,
  });

const malformed = (what: string): ApiError =>
  new ApiError(400, 'INVALID_REQUEST', `The body is not valid ${what}`, { field: 'body' });

/** A line (NDJSON), record (CSV) or entry (JSON) past MAX_BATCH_ENTRY_BYTES, refused as it arrives. */
const tooLong = (what: string, field: string): ApiError =>
  new ApiError(
    400,
    'INVALID_REQUEST',
    `${what} is longer than an entry may be (${MAX_BATCH_ENTRY_BYTES} bytes)`,
    { field, reason: 'TOO_LONG' },
  );

/**
 * Counts bytes as they pass and stops the upload past the limit. Each chunk goes on in a later turn of
 * the event loop: a body already buffered would otherwise be parsed in one synchronous run (~300 ms for
 * 10,000 entries, during which the embedded process answered no single check; bench/RESULTS.md §4).
 */
function byteLimit(): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > MAX_UPLOAD_BYTES) return callback(tooManyBytes());
      setImmediate(callback, null, chunk);
    },
  });
}

function apiErrorOr(error: unknown, fallback: () => ApiError): ApiError {
  return error instanceof ApiError ? error : fallback();
}

/**
 * Reads the request through a stage of its own: a refusal mid-body stops the parsing, and the rest
 * of the body is then discarded as it arrives (never held), so the caller still gets the answer
 * instead of a reset connection.
 */
async function readThrough(
  body: Readable,
  ...stages: (Transform | NodeJS.ReadWriteStream)[]
): Promise<void> {
  const detached = new PassThrough();
  body.pipe(detached);
  try {
    await pipeline(detached, byteLimit(), ...(stages as [Transform]));
  } catch (error) {
    body.unpipe(detached);
    body.resume();
    throw error;
  }
}

/** Stops a JSON body at the first entry, or other member, longer than an entry may be. */
function jsonEntryBound(): Transform {
  const bound = new JsonEntryBound(MAX_BATCH_ENTRY_BYTES);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const overrun = bound.scan(chunk);
      if (overrun === undefined) return callback(null, chunk);
      const { field, line } = overrun;
      const what =
        field === 'body' ? `A member of the body (line ${line})` : `${field} (line ${line})`;
      callback(tooLong(what, field));
    },
  });
}

/** A key twice in one object, or nesting past MAX_JSON_DEPTH: refused as the edge refuses a JSON body. */
const duplicateKey = (field: string, where: string): ApiError =>
  new ApiError(400, 'INVALID_REQUEST', `Duplicate key in ${where}: ${field}`, {
    field,
    reason: 'DUPLICATE_KEY',
  });
const tooDeepIn = (where: string): ApiError =>
  new ApiError(400, 'INVALID_REQUEST', `${where} nests deeper than ${MAX_JSON_DEPTH} levels`, {
    field: 'body',
    reason: 'TOO_DEEP',
  });

/**
 * The keys of each open object of a token stream (null for an array), so a key twice in one object is
 * refused as it arrives: the assembler, like JSON.parse, would keep the last one (hostile-input.ts).
 */
class KeysInOpenObjects {
  private readonly open: (Set<string> | null)[] = [];
  /** The repeated key, or undefined; throws nothing. */
  take(token: { name: string; value?: unknown }): string | undefined {
    if (token.name === 'startObject') this.open.push(new Set());
    else if (token.name === 'startArray') this.open.push(null);
    else if (token.name === 'endObject' || token.name === 'endArray') this.open.pop();
    else if (token.name === 'keyValue') {
      const keys = this.open.at(-1);
      const key = String(token.value);
      if (keys?.has(key)) return key;
      keys?.add(key);
    }
    return undefined;
  }
  get depth(): number {
    return this.open.length;
  }
}

/**
 * A JSON body read as a stream of tokens (stream-json): entries of the array under `arrayKey` are
 * counted as they start, so the 10,001st stops the read (413) without holding the rest; a key twice
 * in one object, or nesting past MAX_JSON_DEPTH, stops it too (400).
 */
export async function readJsonBody(body: Readable, arrayKey: string): Promise<unknown> {
  const assembler = new Assembler();
  const keys = new KeysInOpenObjects();
  let entries = 0;
  // Whole keys, strings and numbers as one token each, not also streamed in pieces: a third of the tokens.
  const tokens = parserStream({ packValues: true, streamValues: false });
  const assemble = new Transform({
    objectMode: true,
    transform(token: { name: string; value?: unknown }, _encoding, callback) {
      const repeated = keys.take(token);
      if (keys.depth > MAX_JSON_DEPTH) return callback(tooDeepIn('The body'));
      if (repeated !== undefined) {
        const inEntry = assembler.depth >= 3 && assembler.stack[1] === arrayKey;
        const field = inEntry ? `${arrayKey}[${entries - 1}].${repeated}` : repeated;
        return callback(duplicateKey(field, 'the body'));
      }
      assembler.consume(token as never);
      if (token.name === 'startObject' && assembler.depth === 3 && assembler.stack[1] === arrayKey)
        if (++entries > MAX_BATCH_ENTRIES) return callback(tooManyEntries());
      callback();
    },
  });
  try {
    await readThrough(body, jsonEntryBound(), tokens, assemble);
  } catch (error) {
    throw apiErrorOr(error, () => malformed('JSON'));
  }
  if (!assembler.done) throw malformed('JSON');
  return assembler.current;
}

/**
 * Entries one per line (NDJSON), counted as they arrive. Lines are cut from the bytes (a line feed is
 * never inside a UTF-8 character), each at most MAX_BATCH_ENTRY_BYTES: a longer one is refused when its
 * bound is passed, before it is held whole or parsed. Errors name the line (1 = first, blank ones too).
 */
export async function readNdjsonEntries(body: Readable): Promise<unknown[]> {
  const entries: unknown[] = [];
  const splitter = new RecordSplitter('ndjson', MAX_BATCH_ENTRY_BYTES);
  let pending: Buffer[] = [];
  let line = 0;
  const take = (bytes: Buffer): void => {
    line += 1;
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    if (entries.length >= MAX_BATCH_ENTRIES) throw tooManyEntries();
    const hazard = jsonTextHazard(bytes);
    if (hazard?.reason === 'TOO_DEEP') throw tooDeepIn(`Line ${line}`);
    if (hazard?.reason === 'DUPLICATE_KEY')
      throw duplicateKey(`verifications[${entries.length}].${hazard.path}`, `line ${line}`);
    try {
      entries.push(JSON.parse(text));
    } catch {
      throw new ApiError(400, 'INVALID_REQUEST', `Line ${line} is not JSON`, {
        field: `verifications[${entries.length}]`,
      });
    }
  };
  const lines = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        const { ends, tooLongAtLine } = splitter.scan(chunk);
        let from = 0;
        for (const end of ends) {
          take(Buffer.concat([...pending, chunk.subarray(from, end - 1)]));
          pending = [];
          from = end;
        }
        if (tooLongAtLine !== undefined)
          throw tooLong(`Line ${tooLongAtLine}`, `verifications[${entries.length}]`);
        if (from < chunk.length) pending.push(chunk.subarray(from));
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback) {
      try {
        take(Buffer.concat(pending));
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  try {
    await readThrough(body, lines);
  } catch (error) {
    throw apiErrorOr(error, () => malformed('NDJSON'));
  }
  return entries;
}

/** Passes CSV bytes on, and stops at the first record longer than an entry may be. */
function csvRecordBound(): Transform {
  const splitter = new RecordSplitter('csv', MAX_BATCH_ENTRY_BYTES);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const { tooLongAtLine } = splitter.scan(chunk);
      if (tooLongAtLine === undefined) return callback(null, chunk);
      callback(tooLong(`The record on line ${tooLongAtLine}`, 'body'));
    },
  });
}

/**
 * CSV with the header id,iban,name (csv-parse, streamed); rows counted as they are parsed, each record
 * at most MAX_BATCH_ENTRY_BYTES (the header too).
 */
export async function readCsvEntries(body: Readable): Promise<unknown[]> {
  const entries: unknown[] = [];
  const rows = parseCsv({ columns: true, bom: true, skip_empty_lines: true, trim: true });
  const collect = new Transform({
    objectMode: true,
    transform(row: Record<string, string>, _encoding, callback) {
      if (entries.length >= MAX_BATCH_ENTRIES) return callback(tooManyEntries());
      entries.push(row);
      callback();
    },
  });
  try {
    await readThrough(body, csvRecordBound(), rows, collect);
  } catch (error) {
    throw apiErrorOr(error, () => malformed('CSV (header id,iban,name)'));
  }
  return entries;
}
