import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Calls a responder may get from this process per window; over it a call is not sent. */
export interface RateBudget {
  /** undefined when the call may go; else the ms before the window renews. */
  spend(participant: string): Promise<number | undefined>;
}

export function createRateBudget(points: number, durationSeconds = 1): RateBudget {
  const limiter = new RateLimiterMemory({
    keyPrefix: 'requester',
    points,
    duration: durationSeconds,
  });
  return {
    async spend(participant) {
      try {
        await limiter.consume(participant);
        return undefined;
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return refusal.msBeforeNext;
        throw refusal;
      }
    },
  };
}
