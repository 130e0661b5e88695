import { createHash } from 'node:crypto';

/**
 * Names for the statements a process runs again and again, so that PostgreSQL parses and plans each once
 * per connection instead of at every call (node-postgres prepares a named statement on a connection the
 * first time it runs there). Planning was most of what some statements cost the server: the relay's read
 * (EventStore.readAll, with its visibility horizon) took 0.9–1.2 ms of the server's CPU a call unnamed and
 * 0.17–0.18 ms named (bench/RESULTS.md §1).
 *
 * A text is named the second time it is seen, so migrations and other one-off statements stay unnamed;
 * at most `limit` texts are named per client (a text that changed with every call would otherwise fill
 * every connection's memory), and at most `limit * 4` texts seen once are remembered. The name is a hash
 * of the text: one name never stands for two texts, which node-postgres refuses.
 */
export class StatementNames {
  /** A text seen once (undefined) or named (its name). */
  private readonly seen = new Map<string, string | undefined>();
  private named = 0;

  constructor(private readonly limit = 500) {}

  nameFor(text: string): string | undefined {
    if (!this.seen.has(text)) {
      if (this.seen.size < this.limit * 4) this.seen.set(text, undefined);
      return undefined;
    }
    const name = this.seen.get(text);
    if (name !== undefined || this.named >= this.limit) return name;
    const created = `vop_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    this.seen.set(text, created);
    this.named += 1;
    return created;
  }
}
