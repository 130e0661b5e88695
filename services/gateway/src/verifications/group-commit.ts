interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted while a flush is running are written together by the next flush, so
 * under load many requests share one transaction, and a lone request is written at once.
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
      if (!this.flushing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.flush(batch.map((pending) => pending.item));
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    this.flushing = false;
  }
}
