import { z } from '@vop/contracts';

/** What `paced-load.ts` asks of `paced-load-runner.ts` (a JSON file named on its command line). */
export const RunnerJob = z.object({
  url: z.url(),
  rate: z.number().int().positive(),
  seconds: z.number().positive(),
  warmUpSeconds: z.number().nonnegative(),
  /** Keep-alive connections the client keeps at most; requests beyond them queue in the client. */
  connections: z.number().int().positive(),
  caPath: z.string(),
  certPath: z.string(),
  keyPath: z.string(),
  bodiesPath: z.string(),
  /** Also write p50/p90/max of each second of the window to stderr. */
  timeline: z.boolean(),
});
export type RunnerJob = z.infer<typeof RunnerJob>;

/** The line `paced-load-runner.ts` writes to stderr as its window opens (after the warm-up). */
export const WINDOW_OPEN = 'paced-load: window open';

/** The line `paced-load-runner.ts` prints and `paced-load.ts` reads. */
export const RunnerFigures = z.object({
  /** Sent in the window. */
  sent: z.number(),
  /** Sent in all, the warm-up's included. */
  sentInAll: z.number(),
  /** Of those, answered (p50/p99/max are theirs). */
  answered: z.number(),
  elapsedSeconds: z.number(),
  errors: z.number(),
  errorCodes: z.record(z.string(), z.number()),
  p50: z.number(),
  p99: z.number(),
  max: z.number(),
  /** Answers (to whatever was sent) that arrived while the window was open. */
  arrivedInWindow: z.number(),
  /**
   * The client's own event loop over the window: its longest delay, ms. A stall there delays what it
   * sends and reads, and counts as latency the service did not cause.
   */
  clientStallMs: z.number(),
  /**
   * p99 of the `X-Processing-Time-Ms` the answers carried (ms the service took from its edge to its
   * answer, whole ms): the service's own view, without the client's stalls and the box's queues in
   * front of the edge. Null when no answer carried the header (the bare endpoint sends none).
   */
  serviceP99: z.number().nullable(),
});
export type RunnerFigures = z.infer<typeof RunnerFigures>;
