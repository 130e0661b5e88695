import type { EachBatchPayload } from 'kafkajs';

type OffsetAccess = Pick<EachBatchPayload, 'uncommittedOffsets' | 'commitOffsetsIfNecessary'>;

/**
 * Commits a consumer's resolved offsets, i.e. those of messages whose handler resolved.
 * A commit after every batch costs a round trip per partition per fetch, which dominated latency
 * when one consumer reads several partitions; so on the happy path commits are spaced by an
 * interval (a crash or rebalance then redelivers at most that much). Failures and shutdown
 * commit at once.
 */
export class OffsetCommitter {
  private access: OffsetAccess | undefined;
  private lastCommitAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs: number) {}

  /** Any batch payload of the current consumer reaches its offsets (they live in the consumer group). */
  attach(access: OffsetAccess): void {
    this.access = access;
  }

  detach(): void {
    this.cancelTimer();
    this.access = undefined;
  }

  async commitNow(): Promise<void> {
    this.cancelTimer();
    const access = this.access;
    if (!access) return;
    const offsets = access.uncommittedOffsets();
    if (offsets.topics.length > 0) await access.commitOffsetsIfNecessary(offsets);
    this.lastCommitAt = Date.now();
  }

  /** Commits now if the last commit is older than the interval, otherwise once the interval is up. */
  async commitSoon(): Promise<void> {
    const elapsed = Date.now() - this.lastCommitAt;
    if (elapsed >= this.intervalMs) return this.commitNow();
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // Best effort: if it fails (say, mid-rebalance) the messages are delivered again.
      this.commitNow().catch(() => undefined);
    }, this.intervalMs - elapsed);
    this.timer.unref();
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
