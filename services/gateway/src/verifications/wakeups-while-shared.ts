import type { Subscription } from '@vop/messaging';
import type { Logger } from '@vop/observability';

/** How long a failed start waits before it is tried again (the read model's sweep answers meanwhile). */
const RETRY_MS = 1_000;

/**
 * This instance's waiters group, subscribed only while it is needed: while the shared results group
 * does not hold every partition of the completions topic here. When it does (one gateway), its handler
 * sees every end and wakes this instance's callers itself, and a second group fetching every completion
 * again bought nothing (bench/RESULTS.md §1). Starts and stops are serialized and follow
 * the last wish; a wake-up lost while switching is answered by the waiters' sweep of the read model.
 */
export class WakeupsWhileShared {
  private wanted = true;
  private current: Subscription | undefined;
  private switching: Promise<void> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly subscribe: () => Promise<Subscription>,
    private readonly logger: Logger,
  ) {}

  /**
   * Carries out the wish so far: to subscribe, unless the results group said it holds every partition
   * (until it has said anything, it may share them). Resolves once that is done.
   */
  start(): Promise<void> {
    this.settle();
    return this.switching;
  }

  /** Whether the results group leaves some partitions to other instances (or may: not known yet). */
  resultsShared(shared: boolean): void {
    if (this.closed) return;
    this.wanted = shared;
    this.settle();
  }

  /** True while the waiters group is subscribed. */
  get subscribed(): boolean {
    return this.current !== undefined;
  }

  /** Resolves once the last wish is carried out (or has failed and waits for its retry). */
  whenSettled(): Promise<void> {
    return this.switching;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.switching;
    const current = this.current;
    this.current = undefined;
    await current?.close();
  }

  private settle(): void {
    this.switching = this.switching.then(() => this.switchOnce());
  }

  private async switchOnce(): Promise<void> {
    if (this.closed) return;
    if (this.wanted && this.current === undefined) {
      try {
        this.current = await this.subscribe();
      } catch (error) {
        this.logger.warn({ err: error }, 'waiters group not subscribed; retrying');
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.settle(), RETRY_MS);
        this.retry.unref();
      }
    } else if (!this.wanted && this.current !== undefined) {
      const current = this.current;
      this.current = undefined;
      await current
        .close()
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'waiters group not closed cleanly'),
        );
    }
  }
}
