import type { PriorityGate } from '@vop/messaging';

/** What the pacer reads of the single checks: the gateway's priority gate. */
export type SingleCheckTimes = Pick<
  PriorityGate,
  'highActive' | 'highTimesSince' | 'quietHighTime' | 'clock'
>;

/** What the other gateways of the deployment last reported of their single checks. */
export interface ChecksElsewhereReading {
  /** Counts the readings: each is taken into account once. */
  seq: number;
  /** Whether checks come at another gateway. */
  active: boolean;
  /** The worst of their times at WATCHED_QUANTILE over their quiet time, when enough checks told it. */
  slowdown?: number;
}

/** Single checks at the other gateways, which this gateway's priority gate does not see. */
export interface ChecksElsewhere {
  /** The latest reading, or undefined when none is recent. */
  latest(): ChecksElsewhereReading | undefined;
}

export interface ImportPacerOptions {
  /**
   * The least share of its own time the import keeps while single checks come: it slows, it never
   * stops (issue 45: the import yields, it does not starve). Default 0.05.
   */
  leastShare?: number;
  /**
   * A rest of this many times each chunk while single checks come, on top of the paced one, whatever
   * their times (PGlite: 1, so they keep at least half its one thread). Default 0.
   */
  leastRest?: number;
  /** The other gateways' checks (checks-at-other-gateways.ts): the import yields to them too. */
  elsewhere?: ChecksElsewhere;
}

/** The share of single checks whose time the pacer watches: all but their slowest tenth. */
export const WATCHED_QUANTILE = 0.9;
/**
 * A single check's time at WATCHED_QUANTILE while an import runs may be this many times that on a
 * quiet process before the import slows down (issue 45 asks the p99 within twice its idle value).
 */
export const CHECK_SLOWDOWN_ALLOWED = 1.5;
/** A quiet check's time at WATCHED_QUANTILE assumed until enough checks ran without an import. */
export const ASSUMED_QUIET_MS = 10;
/** How many times their quiet time checks took (the quiet time assumed while none is known). */
export const slowdownOf = (watchedMs: number, quietMs: number | null | undefined): number =>
  watchedMs / (quietMs ?? ASSUMED_QUIET_MS);
/** The least time and checks the pacer looks at before it changes the import's pace. */
const WINDOW_MS = 500;
const LEAST_CHECKS = 20;
/** Rest per unit of chunk time when checks start coming: the import then gets half its time. */
const FIRST_RATIO = 1;
/** The least rest per unit of chunk time while checks come: above none, so that it can double. */
const LEAST_RATIO = 0.05;

/**
 * Paces an import by what its single checks take: while checks come, each chunk is followed by a
 * rest in proportion to the chunk's time, and every half second the proportion doubles when the
 * checks' time at WATCHED_QUANTILE was above CHECK_SLOWDOWN_ALLOWED times its quiet value, and shrinks
 * by a fifth when it was well under. Without checks there is no rest. Why: what slowed the checks
 * was not the import's share of one thread but the bursts each chunk sends through every process
 * (relay, Kafka, both copies of the accounts); a fixed share cannot know how much this machine can
 * spare, the checks' own times can. The p90 is watched, not the p99: at the least share the p99 stayed
 * where it was at a faster pace, so pacing on it would only stop the import (bench/RESULTS.md §5).
 * With several gateways the slowest of them counts: this one's checks, or another's as reported.
 */
export class ImportPacer {
  /** Rest per unit of chunk time; undefined while no checks come. */
  private ratio: number | undefined;
  private windowStart: number;
  private readonly maxRatio: number;
  private readonly leastRest: number;
  private readonly elsewhere: ChecksElsewhere | undefined;
  /** The reading from the other gateways last taken into account. */
  private seenElsewhere = 0;

  constructor(
    private readonly checks: SingleCheckTimes,
    options: ImportPacerOptions = {},
  ) {
    const share = options.leastShare ?? 0.05;
    if (!(share > 0 && share <= 1)) throw new RangeError('leastShare must be in (0, 1]');
    this.maxRatio = (1 - share) / share;
    this.leastRest = options.leastRest ?? 0;
    this.elsewhere = options.elsewhere;
    this.windowStart = checks.clock();
  }

  /** Whether single checks come (and may slow the import): its chunks are then kept short. */
  checksActive(): boolean {
    return (
      this.maxRatio > 0 && (this.checks.highActive() || this.elsewhere?.latest()?.active === true)
    );
  }

  /** The rest (ms) after a chunk that took `took` ms. */
  restAfter(took: number): number {
    const now = this.checks.clock();
    if (!this.checksActive()) {
      this.ratio = undefined;
      this.windowStart = now;
      return 0;
    }
    let ratio = this.ratio ?? Math.min(FIRST_RATIO, this.maxRatio);
    if (now - this.windowStart >= WINDOW_MS) {
      const slowdown = this.slowdownSince(this.windowStart);
      if (slowdown !== undefined) {
        if (slowdown > CHECK_SLOWDOWN_ALLOWED) ratio *= 2;
        else if (slowdown < 0.8 * CHECK_SLOWDOWN_ALLOWED)
          ratio = Math.max(LEAST_RATIO, ratio * 0.8);
        ratio = Math.min(this.maxRatio, ratio);
        this.windowStart = now;
      }
    }
    this.ratio = ratio;
    return took * (this.leastRest + ratio);
  }

  /**
   * The checks' time at WATCHED_QUANTILE since `since` over their quiet time, the worst of this
   * gateway's and a new reading of the others'; undefined when neither told enough.
   */
  private slowdownSince(since: number): number | undefined {
    const slowdowns: number[] = [];
    const recent = this.checks.highTimesSince(since, WATCHED_QUANTILE);
    if (recent.count >= LEAST_CHECKS) {
      slowdowns.push(slowdownOf(recent.quantile, this.checks.quietHighTime(WATCHED_QUANTILE)));
    }
    const reading = this.elsewhere?.latest();
    if (reading?.slowdown !== undefined && reading.seq !== this.seenElsewhere) {
      this.seenElsewhere = reading.seq;
      slowdowns.push(reading.slowdown);
    }
    return slowdowns.length === 0 ? undefined : Math.max(...slowdowns);
  }
}
