export interface PriorityGateOptions {
  /** The longest a low-priority unit waits for high-priority work to pause. Default 25 ms. */
  maxWaitMs?: number;
  /**
   * The share of time low-priority units may take while high-priority work is active (some ran in
   * the last `activeWindowMs`): after a unit of d ms, the next waits d × (1 − share) / share.
   * Default 0.5. Without high-priority work, units run back to back.
   */
  lowShare?: number;
  /** How long after high-priority work it still counts as active. Default 1,000 ms. */
  activeWindowMs?: number;
}

/**
 * Two priorities of work in one process (single checks over batch entries). Low-priority units run
 * one at a time; while high-priority work is active they take a bounded share of the time, and each
 * starts when no high-priority work is in flight or once it has waited `maxWaitMs`. So a single check
 * waits behind one unit at most, and a steady stream of single checks slows a batch, never stops it.
 */
export class PriorityGate {
  private highInFlight = 0;
  private lastHighAt = Number.NEGATIVE_INFINITY;
  private idleWaiters: (() => void)[] = [];
  private lowQueue: Promise<void> = Promise.resolve();
  private nextLowAt = 0;
  private readonly maxWaitMs: number;
  private readonly restPerBusy: number;
  private readonly activeWindowMs: number;

  constructor(options: PriorityGateOptions = {}) {
    this.maxWaitMs = options.maxWaitMs ?? 25;
    const share = options.lowShare ?? 0.5;
    if (!(share > 0 && share <= 1)) throw new RangeError('lowShare must be in (0, 1]');
    this.restPerBusy = (1 - share) / share;
    this.activeWindowMs = options.activeWindowMs ?? 1000;
  }

  /** Runs high-priority work; low-priority work does not start while it runs (up to maxWaitMs). */
  async high<T>(work: () => Promise<T>): Promise<T> {
    this.highInFlight += 1;
    try {
      return await work();
    } finally {
      this.highInFlight -= 1;
      this.lastHighAt = performance.now();
      if (this.highInFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Runs low-priority work after the units queued before it, at its share of the time. */
  low<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lowQueue.then(async () => {
      const rest = this.nextLowAt - performance.now();
      if (rest > 0 && this.highActive()) await delay(rest);
      await this.highIdle();
      const started = performance.now();
      try {
        return await work();
      } finally {
        const ended = performance.now();
        this.nextLowAt = ended + (ended - started) * this.restPerBusy;
      }
    });
    this.lowQueue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * For low-priority work that is not one unit (a long import's slices): resolves once no
   * high-priority work is in flight, or after maxWaitMs.
   */
  yieldToHigh(): Promise<void> {
    return this.highIdle();
  }

  private highActive(): boolean {
    return this.highInFlight > 0 || performance.now() - this.lastHighAt < this.activeWindowMs;
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
