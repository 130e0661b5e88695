import type { MatchingAccount } from './account-projection.js';

export type AccountLoader = (ibans: string[]) => Promise<Map<string, MatchingAccount>>;

/**
 * The account projection's rows in memory, per IBAN. Read through: an IBAN not yet asked for is loaded
 * with the others of its round in one query; an IBAN without an account is remembered as such. Rows,
 * not a full copy: a million imported accounts need not sit in memory, and the rows kept are still
 * encrypted, so an erased holder's names stay unreadable.
 *
 * Kept only while trusted (`trust`): while the process hears of every change to the projection, from
 * whichever process applies it (the projection's transaction notifies, account-projection-consumer.ts,
 * and every cache of the projection listens). Every change clears it (`invalidate`), and a load that
 * was running while a change was heard is not kept, since it may have read the row before that commit.
 * A row is never older than the last change heard, and never older than `maxAgeMs`: a notification lost
 * with a listening connection is not trusted beyond that.
 */
export class AccountCache {
  private readonly byIban = new Map<string, MatchingAccount | null>();
  private generation = 0;
  private trusted = false;
  private clearedAt: number;
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: { maxEntries?: number; maxAgeMs?: number; now?: () => number } = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.clearedAt = this.now();
  }

  /** Whether every change to the projection is heard from now on (false: rows are loaded, not kept). */
  trust(trusted: boolean): void {
    this.trusted = trusted;
    this.invalidate();
  }

  async find(ibans: readonly string[], load: AccountLoader): Promise<Map<string, MatchingAccount>> {
    if (!this.trusted) return load([...new Set(ibans)]);
    if (this.now() - this.clearedAt > this.maxAgeMs) this.invalidate();
    const found = new Map<string, MatchingAccount>();
    const missing: string[] = [];
    for (const iban of new Set(ibans)) {
      const cached = this.byIban.get(iban);
      if (cached === undefined) missing.push(iban);
      else if (cached !== null) found.set(iban, cached);
    }
    if (missing.length === 0) return found;
    const generationAtLoad = this.generation;
    const loaded = await load(missing);
    const keep = generationAtLoad === this.generation;
    if (keep && this.byIban.size + missing.length > this.maxEntries) this.byIban.clear();
    for (const iban of missing) {
      const account = loaded.get(iban);
      if (account !== undefined) found.set(iban, account);
      if (keep) this.byIban.set(iban, account ?? null);
    }
    return found;
  }

  /** After the projection changed (or may have): an IBAN change or deletion touches more than one IBAN. */
  invalidate(): void {
    this.generation++;
    this.byIban.clear();
    this.clearedAt = this.now();
  }

  get size(): number {
    return this.byIban.size;
  }
}
