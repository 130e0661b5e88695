/**
 * The fallback poll of a loop that a notification wakes when work arrives: fast right after work or a
 * wake-up (a notification can come before what it announces is visible), then twice as long after
 * each poll that found nothing, up to `slowestMs`. An idle loop then costs a statement per cap.
 */
export class IdlePoll {
  private currentMs: number;

  constructor(
    private readonly fastestMs: number,
    private readonly slowestMs: number,
  ) {
    if (!(fastestMs > 0) || !(slowestMs >= fastestMs))
      throw new RangeError(
        `an idle poll needs 0 < fastest (${fastestMs}) <= slowest (${slowestMs})`,
      );
    this.currentMs = fastestMs;
  }

  /** Work was found or a wake-up came: the next wait is the fastest again. */
  snapBack(): void {
    this.currentMs = this.fastestMs;
  }

  /** The wait before the next poll; the wait after that is twice as long, up to the slowest. */
  next(): number {
    const waitMs = this.currentMs;
    this.currentMs = Math.min(this.currentMs * 2, this.slowestMs);
    return waitMs;
  }
}
