/** A job run on a timer: started and stopped with the service. */
export interface PeriodicJob {
  start(): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs`, never two runs at once (a tick while one is still going is skipped). A
 * failed run goes to `onError` and is tried again at the next tick. The timer never keeps the process alive.
 */
export function periodicJob(options: {
  intervalMs: number;
  run: () => Promise<void>;
  onError: (error: unknown) => void;
}): PeriodicJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  function tick(): void {
    if (running) return;
    running = options
      .run()
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
  }

  return {
    start() {
      if (timer) return;
      timer = setInterval(tick, options.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
