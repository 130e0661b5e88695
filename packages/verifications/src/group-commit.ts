interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted in one turn of the event loop, or while a flush is running, are written
 * together by the next flush, so under load many requests share one transaction. The flush starts with
 * setImmediate, after the requests that arrived with this one were read (PGlite answers within
 * microtasks, so starting at once would commit one request at a time).
 */
export class GroupCommit<T> {
  private queue: Pending<T>[] = [];
  private flushing = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<void>,
    private readonly maxBatch = 256,
  ) {}

  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.flush(batch.map((pending) => pending.item));
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
      // Let requests that arrived during the flush join the next batch.
      if (this.queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    this.flushing = false;
  }
}
