/**
 * A latch for "something may have changed": wake() before wait() is not lost, and wake-ups within one turn
 * of the event loop are coalesced into one (the waiter resumes with setImmediate).
 */
export class Wakeup {
  private pending = false;
  private scheduled = false;
  private resolveWaiter: (() => void) | undefined;

  wake(): void {
    this.pending = true;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.resolveWaiter?.();
    });
  }

  /**
   * Resolves at the next wake() (or at once if one came since the last wait), or after timeoutMs;
   * true when a wake() ended the wait.
   */
  async wait(timeoutMs: number): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return true;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.resolveWaiter = done;
    });
    this.resolveWaiter = undefined;
    const woken = this.pending;
    this.pending = false;
    return woken;
  }
}
