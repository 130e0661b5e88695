/**
 * Verifications whose end this gateway wrote to the results read model in the statement that recorded
 * them: when their completion comes back over the completions topic, the results group drops it by the
 * message key, before decoding and without a statement. With several gateways, another instance's
 * results group may read an end decided here, so an id is not always taken back: at most `max` are
 * kept, the oldest forgotten first. A forgotten end is applied again by the read model's guarded update
 * (`status = 'PENDING'`), which changes nothing.
 */
export class EndedHere {
  private readonly ids = new Set<string>();

  constructor(private readonly max = 100_000) {}

  add(verificationId: string): void {
    this.ids.add(verificationId);
    if (this.ids.size > this.max) {
      // A Set iterates in insertion order: the first is the oldest.
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
  }

  /** True once for an id added here: its end came back. */
  take(verificationId: string): boolean {
    return this.ids.size > 0 && this.ids.delete(verificationId);
  }

  get size(): number {
    return this.ids.size;
  }
}
