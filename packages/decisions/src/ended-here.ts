/**
 * Verifications whose end this process applied to its own read model in the statement (or transaction)
 * that recorded them (the gateway's results, the batch service's progress): when their completion
 * comes back over Kafka, the consumer drops it by the message key (the verification id), before
 * decoding and without a statement. With several instances, another instance's consumer may read an
 * end decided here, so an id is not always taken back: at most `max` are kept, the oldest forgotten
 * first. A forgotten end is applied again by the read model's first-end guard, which changes nothing.
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
