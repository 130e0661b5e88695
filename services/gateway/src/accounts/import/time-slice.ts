import type { PriorityGate } from '@vop/messaging';
import { setImmediate as turn } from 'node:timers/promises';

/**
 * Bounds how long the import's work runs without letting anything else on the thread run: a single
 * check that arrives meanwhile waits at most one slice (issue 45: checks stay first during an import).
 * `due()` is cheap enough to ask every record; only when a slice has passed does `pass()` cost a turn.
 */
export class TimeSlice {
  private started: number;

  constructor(
    private readonly sliceMs: number,
    /** Single checks in flight are let finish first (at most the gate's maxWaitMs). */
    private readonly gate?: Pick<PriorityGate, 'yieldToHigh'>,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  due(): boolean {
    return this.now() - this.started >= this.sliceMs;
  }

  /** Lets what waits run (I/O callbacks, timers, single checks in flight), then a new slice begins. */
  async pass(): Promise<void> {
    await turn();
    await this.gate?.yieldToHigh();
    this.started = this.now();
  }
}
