interface Pending<T, R> {
  item: T;
  resolve: (result: R | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted in one turn of the event loop, or while the rounds in flight are full,
 * are written together by the next flush, so under load many requests share one statement. A flush
 * starts with setImmediate, after the requests that arrived with this one were read (PGlite answers
 * within microtasks, so starting at once would commit one request at a time).
 *
 * Up to `maxInFlight` flushes run at once (default one). With one, the thread that prepares a round
 * can sit idle while the round's statement runs, every connection's request waiting for it; with two,
 * the next round is prepared meanwhile, but rounds are smaller and each costs its statement (where to
 * use which: packages/verifications/src/recorder.ts). Rounds are independent (each is its own streams
 * and rows), so their order does not matter; a failed round rejects only its own items. A flush may
 * return one result per item, in order: each item's submitter gets its own.
 */
export class GroupCommit<T, R = void> {
  private queue: Pending<T, R>[] = [];
  /** A round starts on the next turn. */
  private scheduled = false;
  private inFlight = 0;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly gatherMs: number;
  private lastStart = Number.NEGATIVE_INFINITY;
  /** A round starts when the gathering time is up. */
  private gathering: NodeJS.Timeout | undefined;

  /**
   * `maxBatch`: items in one flush at most (default 256); `maxInFlight`: flushes at once (default 1);
   * `gatherMs`: the least time from one flush's start to the next one's (default 0).
   */
  constructor(
    private readonly flush: (items: T[]) => Promise<readonly R[] | void>,
    limits: {
      maxBatch?: number | undefined;
      maxInFlight?: number | undefined;
      gatherMs?: number | undefined;
    } = {},
  ) {
    this.maxBatch = limits.maxBatch ?? 256;
    this.maxInFlight = limits.maxInFlight ?? 1;
    this.gatherMs = limits.gatherMs ?? 0;
    if (!Number.isInteger(this.maxInFlight) || this.maxInFlight < 1)
      throw new Error('maxInFlight must be an integer >= 1');
    if (!Number.isFinite(this.gatherMs) || this.gatherMs < 0)
      throw new Error('gatherMs must be a finite number >= 0');
  }

  submit(item: T): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const wait = this.lastStart + this.gatherMs - performance.now();
    if (wait > 0 && this.queue.length < this.maxBatch) {
      this.gathering ??= setTimeout(() => {
        this.gathering = undefined;
        this.start();
      }, wait);
      return;
    }
    // A full round does not wait out the gathering time.
    clearTimeout(this.gathering);
    this.gathering = undefined;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight += 1;
    this.lastStart = performance.now();
    const settle = (outcome: (pending: Pending<T, R>, index: number) => void) => {
      this.inFlight -= 1;
      for (const [index, pending] of batch.entries()) outcome(pending, index);
      this.schedule();
    };
    // The executor turns a flush that throws before returning its promise into a rejection.
    void new Promise<readonly R[] | void>((resolve) =>
      resolve(this.flush(batch.map((pending) => pending.item))),
    ).then(
      (results) => settle((pending, index) => pending.resolve(results?.[index])),
      (error: unknown) => settle((pending) => pending.reject(error)),
    );
    // Items that arrived in the same turn beyond maxBatch, or a slot still free.
    this.schedule();
  }
}
