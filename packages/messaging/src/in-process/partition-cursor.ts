import type { GroupMember } from './group-member.js';
import type { PartitionLog } from './partition-log.js';

/** Shared by every partition a `settled()` call waits for; resolves when `pending` reaches 0. */
export interface SettleWaiter {
  pending: number;
  resolve(): void;
}

/** A consumer group's position in one partition, and who in the group handles it now. */
export class PartitionCursor {
  /** Next offset to handle; everything below it is committed. */
  committed: number;
  owner: GroupMember | undefined;
  /** True while a delivery loop runs for this partition: there is never more than one. */
  pumping = false;
  /** When the last delivery of this partition was read (performance.now()), for `lingerMs`. */
  deliveredAt = Number.NEGATIVE_INFINITY;
  private waits: Array<{ target: number; waiter: SettleWaiter }> = [];

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly log: PartitionLog,
    committed: number,
  ) {
    this.committed = committed;
  }

  get hasBacklog(): boolean {
    return this.committed < this.log.endOffset;
  }

  /** Registers `waiter` until this cursor reaches `target`; returns false if it already has. */
  waitFor(target: number, waiter: SettleWaiter): boolean {
    if (this.committed >= target) return false;
    waiter.pending++;
    this.waits.push({ target, waiter });
    return true;
  }

  /** Marks the next `count` messages as handled. */
  commit(count: number): void {
    this.committed += count;
    if (this.waits.length > 0) this.releaseWaits((target) => target <= this.committed);
  }

  /** Used when no member of the group reads this partition any more: nobody will advance it. */
  releaseAllWaits(): void {
    this.releaseWaits(() => true);
  }

  private releaseWaits(isReached: (target: number) => boolean): void {
    const stillWaiting: Array<{ target: number; waiter: SettleWaiter }> = [];
    for (const wait of this.waits) {
      if (isReached(wait.target)) {
        wait.waiter.pending--;
        if (wait.waiter.pending === 0) wait.waiter.resolve();
      } else {
        stillWaiting.push(wait);
      }
    }
    this.waits = stillWaiting;
  }
}
