/**
 * The durations of the last `capacity` units of work and when each ended: enough to read a recent
 * quantile without keeping every unit (the priority gate's single checks, `priority-gate.ts`).
 */
export class DurationRing {
  private readonly durations: Float64Array;
  private readonly endedAt: Float64Array;
  private next = 0;
  private size = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be an integer >= 1');
    this.durations = new Float64Array(capacity);
    this.endedAt = new Float64Array(capacity);
  }

  add(endedAt: number, duration: number): void {
    this.durations[this.next] = duration;
    this.endedAt[this.next] = endedAt;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /**
   * The q-quantile (nearest rank) of the durations of the units that ended at or after `since`, and
   * how many there were; `value` is 0 when none.
   */
  quantile(q: number, since = Number.NEGATIVE_INFINITY): { count: number; value: number } {
    const chosen: number[] = [];
    for (let index = 0; index < this.size; index += 1)
      if ((this.endedAt[index] as number) >= since) chosen.push(this.durations[index] as number);
    if (chosen.length === 0) return { count: 0, value: 0 };
    chosen.sort((a, b) => a - b);
    const rank = Math.min(chosen.length, Math.max(1, Math.ceil(q * chosen.length)));
    return { count: chosen.length, value: chosen[rank - 1] as number };
  }
}
