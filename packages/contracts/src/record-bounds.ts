/**
 * The longest a record of a streamed upload may be, from the longest record its contract accepts. A
 * field's limit counts UTF-16 code units, and the longest a code unit can take in JSON is a `\uXXXX`
 * escape, 6 bytes (in CSV, at most 3 bytes of UTF-8); keys, quotes and separators add the rest.
 *
 * A batch entry: id (100) + iban (64) + name (140) = 304 units, 1,824 bytes escaped, ~1.9 KB with its
 * keys (a form 1 entry is less: account number, sort code and a 140-unit name). 4 KiB keeps twice that
 * for whitespace and a carriage return.
 */
export const MAX_BATCH_ENTRY_BYTES = 4 * 1024;

/**
 * An import record: iban (64) + name (140) + 20 alternateNames of 140 + identifiers (a 20-character LEI,
 * 20 others of scheme 35 + id 256) + holderType and status = ~8,860 units, ~53 KB escaped, ~55 KB with
 * its keys and separators. 64 KiB keeps ~10 KB for whitespace.
 */
export const MAX_IMPORT_RECORD_BYTES = 64 * 1024;

/** NDJSON: a record is a line. CSV: a record ends at a line feed outside quotes (RFC 4180). */
export type RecordFormat = 'ndjson' | 'csv';

export interface ScannedChunk {
  /** Offsets in the chunk just past each line feed that ends a record. */
  ends: number[];
  /**
   * Set when the record being read passed the bound: the line it began on (1 = first). The chunk is
   * read no further, so nothing of the rest of that record is held or parsed.
   */
  tooLongAtLine?: number;
}

/**
 * Finds where the records of an upload end, chunk by chunk, counting each record's bytes as they
 * arrive (its ending line feed excluded): a record longer than `maxBytes` is refused when its
 * `maxBytes + 1`st byte arrives, whatever follows. csv-parse's `max_record_size` cannot do this for
 * CSV: it counts field contents only, so a line of nothing but commas grows a record without bound.
 */
export class RecordSplitter {
  #bytes = 0;
  #line = 1;
  #recordLine = 1;
  #quoted = false;

  constructor(
    readonly format: RecordFormat,
    readonly maxBytes: number,
  ) {}

  scan(chunk: Uint8Array): ScannedChunk {
    return this.format === 'ndjson' ? this.#scanLines(chunk) : this.#scanCsv(chunk);
  }

  #scanLines(chunk: Uint8Array): ScannedChunk {
    const ends: number[] = [];
    for (let from = 0; ;) {
      const feed = chunk.indexOf(0x0a, from);
      this.#bytes += (feed === -1 ? chunk.length : feed) - from;
      if (this.#bytes > this.maxBytes) return { ends, tooLongAtLine: this.#recordLine };
      if (feed === -1) return { ends };
      ends.push(feed + 1);
      this.#nextRecord();
      from = feed + 1;
    }
  }

  #scanCsv(chunk: Uint8Array): ScannedChunk {
    const ends: number[] = [];
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at];
      // A doubled quote inside quotes toggles twice: the state stays right without lookahead.
      if (byte === 0x22) this.#quoted = !this.#quoted;
      else if (byte === 0x0a) {
        if (!this.#quoted) {
          ends.push(at + 1);
          this.#nextRecord();
          continue;
        }
        this.#line += 1;
      }
      if (++this.#bytes > this.maxBytes) return { ends, tooLongAtLine: this.#recordLine };
    }
    return { ends };
  }

  #nextRecord(): void {
    this.#bytes = 0;
    this.#line += 1;
    this.#recordLine = this.#line;
  }
}
