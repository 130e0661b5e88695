import { IdlePoll } from '@vop/outbox';

/** A job run on a timer: started and stopped with the service. */
export interface PeriodicJob {
  start(): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
  /** Work may be coming: the next run is at most `intervalMs` away again (a backing-off job). */
  hurry(): void;
}

/**
 * Runs `run` every `intervalMs`, never two runs at once (the next is timed from the end of the last).
 * With `slowestIntervalMs`, a run that reports it found nothing (resolves `false`) doubles the wait
 * up to that, and a run that found work, a failure or `hurry()` brings it back to `intervalMs`: an idle
 * job then wakes its process rarely. A failed run goes to `onError` and is tried again at the next
 * tick. The timer never keeps the process alive.
 */
export function periodicJob(options: {
  intervalMs: number;
  slowestIntervalMs?: number;
  /** Resolves `false` when it found nothing to do. */
  run: () => Promise<boolean | void>;
  onError: (error: unknown) => void;
}): PeriodicJob {
  const poll = new IdlePoll(
    options.intervalMs,
    Math.max(options.intervalMs, options.slowestIntervalMs ?? options.intervalMs),
  );
  let timer: NodeJS.Timeout | undefined;
  let timerDueAt = 0;
  let running: Promise<void> | undefined;
  let started = false;

  function arm(waitMs: number): void {
    clearTimeout(timer);
    timerDueAt = Date.now() + waitMs;
    timer = setTimeout(tick, waitMs);
    timer.unref();
  }

  function tick(): void {
    timer = undefined;
    running = options
      .run()
      .then(
        (found) => {
          if (found !== false) poll.snapBack();
        },
        (error: unknown) => {
          poll.snapBack();
          options.onError(error);
        },
      )
      .finally(() => {
        running = undefined;
        if (started) arm(poll.next());
      });
  }

  return {
    start() {
      if (started) return;
      started = true;
      arm(poll.next());
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
    hurry() {
      poll.snapBack();
      // A run in progress arms the next one when it ends; an armed timer sooner than this stays.
      if (!started || timer === undefined || timerDueAt <= Date.now() + options.intervalMs) return;
      arm(poll.next());
    },
  };
}
