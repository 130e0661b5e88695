/** Where a JSON body passed its bound: an entry of a top-level array, or another member. */
export interface JsonOverrun {
  /** `verifications[3]`, or `body` for a member that is not an array of entries. */
  field: string;
  /** The line the overrun began on (1 = first). */
  line: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const KEY_CHARACTER = /^[A-Za-z0-9_]{1,64}$/;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Measures a JSON body `{"batchId": …, "verifications": [entry, entry, …]}` byte by byte as it
 * arrives: each entry of an array that is a member of the top object, and each other member, may be
 * at most `maxBytes`; the first over it is reported when its `maxBytes + 1`st byte arrives, before the
 * token parser would build a 20 MB string out of it. Structure only: the parser still judges the JSON.
 */
export class JsonEntryBound {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Whether the member at depth 1 being read is an array: its elements are measured one by one. */
  #inArray = false;
  #index = 0;
  #bytes = 0;
  #line = 1;
  #unitLine = 1;
  /** Whether the unit being measured has shown a byte other than whitespace (its line is then known). */
  #begun = false;
  /** The last string read at depth 1 (a key, when an array follows it), if short and plain. */
  #string: number[] = [];
  #lastKey = '';

  constructor(readonly maxBytes: number) {}

  scan(chunk: Uint8Array): JsonOverrun | undefined {
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at] as number;
      if (byte === 0x0a) this.#line += 1;
      if (this.#inString) this.#inStringByte(byte);
      else if (this.#startsUnit(byte)) continue;
      if (!this.#begun && !WHITESPACE.has(byte)) {
        this.#begun = true;
        this.#unitLine = this.#line;
      }
      if (++this.#bytes > this.maxBytes) return this.#overrun();
    }
    return undefined;
  }

  #inStringByte(byte: number): void {
    if (this.#escaped) this.#escaped = false;
    else if (byte === BACKSLASH) this.#escaped = true;
    else if (byte === QUOTE) {
      this.#inString = false;
      if (this.#depth === 1) this.#lastKey = String.fromCharCode(...this.#string);
    }
    if (this.#depth === 1 && this.#inString && this.#string.length <= 64) this.#string.push(byte);
  }

  /** Reads a byte outside strings; whether it starts a unit (the byte itself then counts in none). */
  #startsUnit(byte: number): boolean {
    switch (byte) {
      case QUOTE:
        this.#inString = true;
        this.#string = [];
        return false;
      case 0x7b: // {
      case 0x5b: // [
        this.#depth += 1;
        if (this.#depth === 2 && byte === 0x5b) {
          this.#inArray = true;
          this.#index = 0;
        }
        return this.#startUnitIf(this.#depth === 1 || (this.#depth === 2 && this.#inArray));
      case 0x7d: // }
      case 0x5d: // ]
        this.#depth -= 1;
        if (this.#depth === 1 && this.#inArray) {
          this.#inArray = false;
          return this.#startUnitIf(true);
        }
        return false;
      case 0x2c: // ,
        if (this.#depth === 2 && this.#inArray) this.#index += 1;
        return this.#startUnitIf(this.#depth === 1 || (this.#depth === 2 && this.#inArray));
      default:
        return false;
    }
  }

  #startUnitIf(starts: boolean): boolean {
    if (starts) {
      this.#bytes = 0;
      this.#begun = false;
    }
    return starts;
  }

  #overrun(): JsonOverrun {
    const inEntry = this.#inArray && this.#depth >= 2 && KEY_CHARACTER.test(this.#lastKey);
    return { field: inEntry ? `${this.#lastKey}[${this.#index}]` : 'body', line: this.#unitLine };
  }
}
