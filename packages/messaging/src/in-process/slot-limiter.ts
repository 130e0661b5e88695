/** Caps how many handler calls one subscriber runs at once; waiters are served first come, first served. */
export class SlotLimiter {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
    }
  }

  /** Takes a slot without waiting when one is free. */
  tryAcquire(): boolean {
    if (this.active < this.limit && this.waiters.length === 0) {
      this.active++;
      return true;
    }
    return false;
  }

  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    // The slot passes straight to the next waiter, so `active` stays the same.
    if (next) next();
    else this.active--;
  }
}
