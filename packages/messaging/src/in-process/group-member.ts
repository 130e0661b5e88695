import { deliverTraced } from '../message-tracing.js';
import { reportHandlerError, type Delivery } from '../delivery.js';
import type { IncomingMessage, SubscribeOptions } from '../types.js';
import { SlotLimiter } from './slot-limiter.js';

/** One `subscribe` call of the in-process bus: a member of its consumer group. */
export class GroupMember {
  readonly topics: ReadonlySet<string>;
  readonly slots: SlotLimiter;
  readonly maxBatchSize: number;
  readonly lingerMs: number;
  closed = false;
  private readonly deliver: Delivery['deliver'];
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private holdsEvery = false;

  constructor(
    readonly groupId: string,
    topics: readonly string[],
    delivery: Delivery,
    private readonly onHandlerError: SubscribeOptions['onHandlerError'],
    concurrency: number,
    private readonly onHoldsEveryPartition?: SubscribeOptions['onHoldsEveryPartition'],
  ) {
    this.topics = new Set(topics);
    this.slots = new SlotLimiter(concurrency);
    this.deliver = delivery.deliver;
    this.maxBatchSize = delivery.maxBatchSize;
    this.lingerMs = delivery.lingerMs;
  }

  /** Runs the handler on a batch, counting it as in flight so `whenIdle` can wait for it. */
  async handle(batch: IncomingMessage[]): Promise<void> {
    this.inFlight++;
    try {
      await deliverTraced(this.deliver, batch);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0 && this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
  }

  reportFailure(error: unknown, batch: readonly IncomingMessage[], attempt: number): void {
    reportHandlerError(this.onHandlerError, error, batch, attempt);
  }

  /** After a rebalance of its group (or when it leaves): tells the subscriber if its share changed. */
  holdsEveryPartition(holdsEvery: boolean): void {
    if (holdsEvery === this.holdsEvery) return;
    this.holdsEvery = holdsEvery;
    this.onHoldsEveryPartition?.(holdsEvery);
  }

  /** Resolves when no handler call of this member is running. */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
