import type { MatchingAccount } from './projection.js';

export type AccountLoader = (ibans: string[]) => Promise<Map<string, MatchingAccount>>;

/**
 * The account projection's rows in memory, per IBAN, for a process that holds the WHOLE projection and
 * is its only writer (embedded: one process, one database). Read through: an IBAN not yet asked for is
 * loaded with the others of its round in one query; an IBAN without an account is remembered as such.
 * Every account delivery the consumer applies clears it (`invalidate`), so a row is never older than
 * the projection's last commit; a load that was running while a delivery was applied is not kept, since
 * it may have read the row before that commit. Not for several processes sharing one projection
 * (distributed): each applies only its own partitions' account events and would not see the others'.
 * Rows, not a full copy: a million imported accounts need not sit in memory; the rows kept are still
 * encrypted, so an erased holder's names stay unreadable.
 */
export class AccountCache {
  private readonly byIban = new Map<string, MatchingAccount | null>();
  private generation = 0;

  constructor(private readonly maxEntries = 100_000) {}

  async find(ibans: readonly string[], load: AccountLoader): Promise<Map<string, MatchingAccount>> {
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
  }

  get size(): number {
    return this.byIban.size;
  }
}
