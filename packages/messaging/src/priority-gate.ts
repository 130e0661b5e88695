/**
 * Two priorities of work in one process (single checks over batch entries): low-priority work starts
 * only when no high-priority work is in flight, or once it has waited `maxWaitMs`, so a steady stream
 * of single checks slows a batch down but never stops it. Low-priority work runs one unit at a time,
 * so a single check arriving meanwhile waits behind one unit at most (keep the units small).
 */
export class PriorityGate {
  private highInFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private lowQueue: Promise<void> = Promise.resolve();

  constructor(private readonly maxWaitMs = 25) {}

  /** Runs high-priority work; low-priority work does not start while it runs. */
  async high<T>(work: () => Promise<T>): Promise<T> {
    this.highInFlight += 1;
    try {
      return await work();
    } finally {
      this.highInFlight -= 1;
      if (this.highInFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Runs low-priority work after the units queued before it, once high-priority work is idle. */
  low<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lowQueue.then(async () => {
      await this.highIdle();
      return work();
    });
    this.lowQueue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private highIdle(): Promise<void> {
    if (this.highInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.maxWaitMs);
      const waiters = this.idleWaiters;
      function done() {
        clearTimeout(timer);
        const index = waiters.indexOf(done);
        if (index >= 0) waiters.splice(index, 1);
        resolve();
      }
      waiters.push(done);
    });
  }
}
