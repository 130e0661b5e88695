import type { IncomingMessage, SubscribeOptions } from '../types.js';
import { SlotLimiter } from './slot-limiter.js';

/** One `subscribe` call of the in-process bus: a member of its consumer group. */
export class GroupMember {
  readonly topics: ReadonlySet<string>;
  readonly slots: SlotLimiter;
  closed = false;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly groupId: string,
    topics: readonly string[],
    readonly handler: (message: IncomingMessage) => Promise<void>,
    readonly onHandlerError: SubscribeOptions['onHandlerError'],
    concurrency: number,
  ) {
    this.topics = new Set(topics);
    this.slots = new SlotLimiter(concurrency);
  }

  /** Runs the handler, counting it as in flight so `whenIdle` can wait for it. */
  async handle(message: IncomingMessage): Promise<void> {
    this.inFlight++;
    try {
      await this.handler(message);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0 && this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
  }

  reportFailure(error: unknown, message: IncomingMessage, attempt: number): void {
    try {
      this.onHandlerError?.(error, message, attempt);
    } catch {
      // A failing error reporter must not stop redelivery.
    }
  }

  /** Resolves when no handler call of this member is running. */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
