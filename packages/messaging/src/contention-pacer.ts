import { readFileSync } from 'node:fs';

export interface ContentionPacerOptions {
  /** How often the run-queue wait is sampled. Default 100 ms. */
  sampleMs?: number;
  /**
   * The share of a sample's wall time the event loop's thread spent runnable but not running above
   * which the machine counts as contended. Default 0.1.
   */
  contendedShare?: number;
  /** The rest's step: a calm sample takes it off, a contended one at least sets it. Default 20 ms. */
  stepMs?: number;
  /** The longest rest before a unit. Default 1,000 ms. */
  maxRestMs?: number;
  /** The thread's run-queue wait so far, in ms (default: Linux's /proc/thread-self/schedstat). */
  readRunQueueWaitMs?: () => number | undefined;
}

/**
 * Paces a background process's units (a batch's fan-out chunks, its entries' decisions) by how much
 * the machine's CPU is contended. A background process runs niced (VOP_BATCH_NICE), so the kernel
 * already gives it only what the single checks leave; but the work each of its units hands to
 * PostgreSQL and the broker runs at their priority. The pacer watches how long this process's event
 * loop waited for a CPU (the kernel's run-queue wait): while that is a large share of the time, the
 * rest before each unit doubles; while it is small, the rest shrinks by a step (AIMD). On an idle
 * machine units run back to back.
 */
export class ContentionPacer {
  private restMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private last: { at: number; waitMs: number } | undefined;
  private readonly stepMs: number;
  private readonly maxRestMs: number;
  private readonly contendedShare: number;
  private readonly readWait: () => number | undefined;

  constructor(private readonly options: ContentionPacerOptions = {}) {
    this.stepMs = options.stepMs ?? 20;
    this.maxRestMs = options.maxRestMs ?? 1000;
    this.contendedShare = options.contendedShare ?? 0.1;
    this.readWait = options.readRunQueueWaitMs ?? readThreadRunQueueWaitMs;
  }

  /** The rest before the next unit, in ms. */
  get rest(): number {
    return this.restMs;
  }

  /** One sample: the share of wall time spent waiting for a CPU. Returns the new rest. */
  observe(waitShare: number): number {
    this.restMs =
      waitShare > this.contendedShare
        ? Math.min(this.maxRestMs, Math.max(this.stepMs, this.restMs * 2))
        : Math.max(0, this.restMs - this.stepMs);
    return this.restMs;
  }

  /** Samples the run-queue wait; without one to read (not Linux), it never rests. */
  start(): void {
    if (this.timer || this.readWait() === undefined) return;
    this.timer = setInterval(() => this.sample(), this.options.sampleMs ?? 100);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.last = undefined;
    this.restMs = 0;
  }

  /** Runs a unit after the current rest. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.restMs > 0) await new Promise((resolve) => setTimeout(resolve, this.restMs));
    return work();
  }

  private sample(): void {
    const waitMs = this.readWait();
    const at = performance.now();
    if (waitMs === undefined) return;
    if (this.last && at > this.last.at)
      this.observe((waitMs - this.last.waitMs) / (at - this.last.at));
    this.last = { at, waitMs };
  }
}

/** The calling thread's time spent runnable but waiting for a CPU, in ms (Linux schedstat). */
function readThreadRunQueueWaitMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    const waitNs = Number(fields[1]);
    return Number.isFinite(waitNs) ? waitNs / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
