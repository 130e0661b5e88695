import { DurationRing } from './duration-ring.js';

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
  /** The clock the gate's times are read on (ms). Default `performance.now`. */
  now?: () => number;
}

/** How long the high-priority units that ended since a moment took (`PriorityGate.highTimesSince`). */
export interface HighTimes {
  count: number;
  /** The quantile asked for of their durations, ms (0 when none). */
  quantile: number;
}

/** Single checks kept per ring: at 100 a second, the last ten seconds of them. */
const TIMES_KEPT = 1000;
/** Fewer quiet units than this say too little about how long a unit takes when nothing else runs. */
const LEAST_QUIET_UNITS = 20;

/**
 * Two priorities of work in one process (single checks over batch entries). Low-priority units run
 * one at a time; while high-priority work is active they take a bounded share of the time, and each
 * starts when no high-priority work is in flight or once it has waited `maxWaitMs`. So a single check
 * waits behind one unit at most, and a steady stream of single checks slows a batch, never stops it.
 */
export class PriorityGate {
  private highInFlight = 0;
  /** Low-priority units running now, and long low-priority work (an import) under way. */
  private lowRunning = 0;
  private backgroundRunning = 0;
  /** Every high-priority unit's duration, and those of the units while no low-priority work ran. */
  private readonly highTimes = new DurationRing(TIMES_KEPT);
  private readonly quietHighTimes = new DurationRing(TIMES_KEPT);
  private readonly now: () => number;
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
    this.now = options.now ?? (() => performance.now());
  }

  /** Runs high-priority work; low-priority work does not start while it runs (up to maxWaitMs). */
  async high<T>(work: () => Promise<T>): Promise<T> {
    this.highInFlight += 1;
    const started = this.now();
    const quietAtStart = this.quiet();
    try {
      return await work();
    } finally {
      this.highInFlight -= 1;
      this.lastHighAt = this.now();
      this.highTimes.add(this.lastHighAt, this.lastHighAt - started);
      if (quietAtStart && this.quiet())
        this.quietHighTimes.add(this.lastHighAt, this.lastHighAt - started);
      if (this.highInFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Runs low-priority work after the units queued before it, at its share of the time. */
  low<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lowQueue.then(async () => {
      const rest = this.nextLowAt - this.now();
      if (rest > 0 && this.highActive()) await delay(rest);
      await this.highIdle();
      const started = this.now();
      this.lowRunning += 1;
      try {
        return await work();
      } finally {
        this.lowRunning -= 1;
        const ended = this.now();
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

  /**
   * Runs long low-priority work that is not one unit (an import): high-priority units that overlap it
   * do not count as quiet (`quietHighTime`).
   */
  async background<T>(work: () => Promise<T>): Promise<T> {
    this.backgroundRunning += 1;
    try {
      return await work();
    } finally {
      this.backgroundRunning -= 1;
    }
  }

  /** Whether long low-priority work (`background`: an import) is under way. */
  backgroundActive(): boolean {
    return this.backgroundRunning > 0;
  }

  /** Whether high-priority work is in flight or ended within the last `activeWindowMs`. */
  highActive(): boolean {
    return this.highInFlight > 0 || this.now() - this.lastHighAt < this.activeWindowMs;
  }

  /**
   * The q-quantile of how long the high-priority units that ended at or after `since` (the gate's
   * clock) took.
   */
  highTimesSince(since: number, q: number): HighTimes {
    const { count, value } = this.highTimes.quantile(q, since);
    return { count, quantile: value };
  }

  /**
   * The q-quantile of how long the last high-priority units that ran while no low-priority work did
   * took (a single check's usual time on this process), ms; undefined until enough of them ran.
   */
  quietHighTime(q: number): number | undefined {
    const { count, value } = this.quietHighTimes.quantile(q);
    return count >= LEAST_QUIET_UNITS ? value : undefined;
  }

  /** The gate's clock (ms), for callers that compare with `highTimesSince`. */
  clock(): number {
    return this.now();
  }

  private quiet(): boolean {
    return this.lowRunning === 0 && this.backgroundRunning === 0;
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
