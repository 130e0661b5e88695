import type { VerificationEnd } from '@vop/contracts';

interface Waiter {
  resolve: (end: VerificationEnd | undefined) => void;
  timer: NodeJS.Timeout;
  since: number;
}

export interface CompletionWaitersOptions {
  /** Reads ends from the durable read model: the fallback when the fast notification misses. */
  lookup: (verificationIds: string[]) => Promise<VerificationEnd[]>;
  fallbackPollMs?: number;
}

/**
 * Callers waiting for their verification's end (a completion, or a failure). The fast path is the completion event reaching
 * this instance; one periodic sweep of the read model (a single query for every caller that has waited
 * at least half the poll interval) is the fallback, so a missed notification only costs latency.
 */
export class CompletionWaiters {
  private readonly waiting = new Map<string, Waiter>();
  private readonly fallbackPollMs: number;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(private readonly options: CompletionWaitersOptions) {
    this.fallbackPollMs = options.fallbackPollMs ?? 250;
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Must be called before the request is published, so no completion can come first. */
  wait(verificationId: string, deadlineMs: number): Promise<VerificationEnd | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(verificationId, undefined), deadlineMs);
      this.waiting.set(verificationId, { resolve, timer, since: performance.now() });
      this.sweeper ??= setInterval(() => void this.sweep(), this.fallbackPollMs);
    });
  }

  /** Whether a caller of this instance waits for this verification. */
  isWaiting(verificationId: string): boolean {
    return this.waiting.has(verificationId);
  }

  notify(end: VerificationEnd): void {
    this.settle(end.data.verificationId, end);
  }

  cancel(verificationId: string): void {
    this.settle(verificationId, undefined);
  }

  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    // Half an interval, not a whole one: the interval's tick and a waiter's registration are a millisecond or so
    // apart, so a whole interval would leave a waiter registered just after the timer started for the next sweep
    // (and split one sweep's query in two).
    const cutoff = performance.now() - this.fallbackPollMs / 2;
    const overdue = [...this.waiting]
      .filter(([, waiter]) => waiter.since <= cutoff)
      .map(([id]) => id);
    if (overdue.length === 0) return;
    this.sweeping = true;
    try {
      for (const end of await this.options.lookup(overdue))
        this.settle(end.data.verificationId, end);
    } catch {
      // The next sweep tries again; the deadline bounds the wait.
    } finally {
      this.sweeping = false;
    }
  }

  private settle(verificationId: string, end: VerificationEnd | undefined): void {
    const waiter = this.waiting.get(verificationId);
    if (!waiter) return;
    this.waiting.delete(verificationId);
    clearTimeout(waiter.timer);
    if (this.waiting.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
    waiter.resolve(end);
  }
}
