import type { VerificationCompletedData } from '@vop/contracts';

interface Waiter {
  resolve: (completed: VerificationCompletedData | undefined) => void;
  timer: NodeJS.Timeout;
  poller: NodeJS.Timeout | undefined;
}

export interface CompletionWaitersOptions {
  /** Reads a completion from the durable read model: the fallback when the fast notification misses. */
  lookup: (verificationId: string) => Promise<VerificationCompletedData | undefined>;
  fallbackPollMs?: number;
}

/**
 * Callers waiting for their verification's completion. The fast path is the completion event reaching
 * this instance; the read model is polled as a fallback so a missed notification only costs latency.
 */
export class CompletionWaiters {
  private readonly waiting = new Map<string, Waiter>();
  private readonly fallbackPollMs: number;

  constructor(private readonly options: CompletionWaitersOptions) {
    this.fallbackPollMs = options.fallbackPollMs ?? 250;
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Must be called before the request is published, so no completion can come first. */
  wait(verificationId: string, deadlineMs: number): Promise<VerificationCompletedData | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => this.settle(verificationId, undefined), deadlineMs),
        poller: undefined,
      };
      this.waiting.set(verificationId, waiter);
      this.schedulePoll(verificationId, waiter);
    });
  }

  notify(completed: VerificationCompletedData): void {
    this.settle(completed.verificationId, completed);
  }

  cancel(verificationId: string): void {
    this.settle(verificationId, undefined);
  }

  private schedulePoll(verificationId: string, waiter: Waiter): void {
    waiter.poller = setTimeout(() => {
      this.options
        .lookup(verificationId)
        .then((completed) => {
          if (completed) this.settle(verificationId, completed);
          else if (this.waiting.get(verificationId) === waiter) this.schedulePoll(verificationId, waiter);
        })
        .catch(() => {
          if (this.waiting.get(verificationId) === waiter) this.schedulePoll(verificationId, waiter);
        });
    }, this.fallbackPollMs);
  }

  private settle(verificationId: string, completed: VerificationCompletedData | undefined): void {
    const waiter = this.waiting.get(verificationId);
    if (!waiter) return;
    this.waiting.delete(verificationId);
    clearTimeout(waiter.timer);
    if (waiter.poller) clearTimeout(waiter.poller);
    waiter.resolve(completed);
  }
}
