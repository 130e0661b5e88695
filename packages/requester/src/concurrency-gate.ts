/**
 * Calls in flight to one responder, at most `limit`; a call over it waits in a queue of at most
 * `queue` until a slot frees or its signal aborts. Waiting (rather than failing at once) lets a
 * burst of a batch ride out a slow second; the short queue keeps a down responder from holding
 * callers: over it, the call is refused at once.
 */
export interface ConcurrencyGate {
  /** Resolves true with a slot taken (release it), false when refused or aborted first. */
  enter(signal: AbortSignal): Promise<boolean>;
  release(): void;
  inFlight(): number;
  waiting(): number;
}

export function createConcurrencyGate(limit: number, queue: number): ConcurrencyGate {
  let inFlight = 0;
  const waiters: Array<() => void> = [];

  return {
    enter(signal) {
      if (signal.aborted) return Promise.resolve(false);
      if (inFlight < limit) {
        inFlight += 1;
        return Promise.resolve(true);
      }
      if (waiters.length >= queue) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const admit = () => {
          signal.removeEventListener('abort', abandon);
          resolve(true);
        };
        const abandon = () => {
          const index = waiters.indexOf(admit);
          if (index >= 0) waiters.splice(index, 1);
          resolve(false);
        };
        waiters.push(admit);
        signal.addEventListener('abort', abandon, { once: true });
      });
    },
    release() {
      const next = waiters.shift();
      // The slot passes straight to the next waiter, so inFlight stays as it is.
      if (next !== undefined) next();
      else inFlight -= 1;
    },
    inFlight: () => inFlight,
    waiting: () => waiters.length,
  };
}
