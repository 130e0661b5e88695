import type { IncomingMessage } from '../types.js';

/** Entries dropped from the front are only sliced away in bulk, so trimming stays amortised O(1). */
const COMPACT_AFTER_DROPPED = 4096;

/** One partition's ordered, append-only log, trimmed from the front. Offsets never repeat. */
export class PartitionLog {
  private entries: IncomingMessage[] = [];
  /** Index in `entries` of the message at `startOffset`. */
  private head = 0;
  private start = 0;

  /** Lowest offset still stored. */
  get startOffset(): number {
    return this.start;
  }

  /** Offset the next appended message gets. */
  get endOffset(): number {
    return this.start + this.entries.length - this.head;
  }

  append(build: (offset: number) => IncomingMessage): void {
    this.entries.push(build(this.endOffset));
  }

  /** Up to `limit` consecutive messages from `offset` on (fewer, or none, if the log ends sooner). */
  readFrom(offset: number, limit: number): IncomingMessage[] {
    if (offset < this.start) return [];
    const first = this.head + offset - this.start;
    return this.entries.slice(first, first + limit);
  }

  /** Forgets every message below `offset`. */
  trimBelow(offset: number): void {
    const target = Math.min(offset, this.endOffset);
    if (target <= this.start) return;
    this.head += target - this.start;
    this.start = target;
    if (this.head >= COMPACT_AFTER_DROPPED && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** Number of messages held in memory (for tests and metrics). */
  get retained(): number {
    return this.entries.length - this.head;
  }
}
