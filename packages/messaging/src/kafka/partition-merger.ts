import type { BatchHandler, IncomingMessage } from '../types.js';

interface Waiting {
  messages: IncomingMessage[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Hands the batches that partitions submit while a handler call runs to the next call together, up to
 * maxMessages (a batch is never split), so concurrent partitions share one call (and one transaction).
 * Calls run one at a time; each submitter learns whether the call holding its batch succeeded.
 */
export class PartitionMerger {
  private waiting: Waiting[] = [];
  private running = false;

  constructor(
    private readonly handle: BatchHandler,
    private readonly maxMessages: number,
  ) {}

  deliver(messages: IncomingMessage[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ messages, resolve, reject });
      if (this.running) return;
      this.running = true;
      // After this turn, so partitions fetched together join the first call.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const taken = this.take();
      try {
        await this.handle(taken.flatMap((waiting) => waiting.messages));
        for (const waiting of taken) waiting.resolve();
      } catch (error) {
        for (const waiting of taken) waiting.reject(error);
      }
    }
    this.running = false;
  }

  private take(): Waiting[] {
    let count = 0;
    let index = 0;
    while (index < this.waiting.length) {
      const size = this.waiting[index]!.messages.length;
      if (index > 0 && count + size > this.maxMessages) break;
      count += size;
      index++;
    }
    return this.waiting.splice(0, index);
  }
}
