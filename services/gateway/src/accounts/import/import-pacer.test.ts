import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HighTimes } from '@vop/messaging';
import {
  ASSUMED_QUIET_MS,
  CHECK_SLOWDOWN_ALLOWED,
  type ChecksElsewhereReading,
  ImportPacer,
  type SingleCheckTimes,
} from './import-pacer.js';

/** Single checks as the gate reports them: whether they come, and their times now and when quiet. */
function checks(initial: { active: boolean; recent: number; quiet?: number; count?: number }) {
  const state = { now: 0, ...initial };
  const times: SingleCheckTimes = {
    highActive: () => state.active,
    highTimesSince: (): HighTimes => ({ count: state.count ?? 50, quantile: state.recent }),
    quietHighTime: () => state.quiet,
    clock: () => state.now,
  };
  return { state, times };
}

/** Half a second later, a chunk of 10 ms: the rest the pacer asks after it. */
function nextWindow(pacer: ImportPacer, state: { now: number }): number {
  state.now += 500;
  return pacer.restAfter(10);
}

describe('the import pacer', () => {
  it('given no single checks, then no chunk rests', () => {
    const { state, times } = checks({ active: false, recent: 1_000, quiet: 5 });
    const pacer = new ImportPacer(times);
    assert.equal(pacer.checksActive(), false);
    assert.equal(nextWindow(pacer, state), 0);
    assert.equal(nextWindow(pacer, state), 0);
  });

  it('given checks slower than allowed, then the rest doubles each half second up to the least share', () => {
    const { state, times } = checks({ active: true, recent: 50, quiet: 5 });
    const pacer = new ImportPacer(times, { leastShare: 0.05 });
    assert.equal(pacer.checksActive(), true);
    // Checks start: the import at once gets half its time; then 2, 4, 8, 16, and at most 19 (5 %).
    assert.equal(pacer.restAfter(10), 10);
    const rests = [1, 2, 3, 4, 5, 6].map(() => Math.round(nextWindow(pacer, state)));
    assert.deepEqual(rests, [20, 40, 80, 160, 190, 190]);
  });

  it('given checks well within what is allowed, then the rest shrinks by a fifth each half second, never to none', () => {
    const { state, times } = checks({ active: true, recent: 50, quiet: 5 });
    const pacer = new ImportPacer(times);
    pacer.restAfter(10);
    nextWindow(pacer, state);
    state.recent = 5;
    const rests = Array.from({ length: 30 }, () => nextWindow(pacer, state));
    assert.equal(rests[0], 16);
    assert.ok(rests.every((rest, index) => index === 0 || rest <= (rests[index - 1] as number)));
    assert.equal(rests.at(-1), 0.5);
  });

  it('given checks between well within and allowed, then the rest stays', () => {
    const quiet = 4;
    const { state, times } = checks({
      active: true,
      recent: 0.9 * CHECK_SLOWDOWN_ALLOWED * quiet,
      quiet,
    });
    const pacer = new ImportPacer(times);
    assert.deepEqual(
      [pacer.restAfter(10), nextWindow(pacer, state), nextWindow(pacer, state)],
      [10, 10, 10],
    );
  });

  it('given fewer checks in the window than it needs, then the rest stays until there are enough', () => {
    const { state, times } = checks({ active: true, recent: 50, quiet: 5, count: 3 });
    const pacer = new ImportPacer(times);
    pacer.restAfter(10);
    assert.equal(nextWindow(pacer, state), 10);
    state.count = 50;
    assert.equal(nextWindow(pacer, state), 20);
  });

  it('given no quiet checks yet, then the allowed time is taken from the assumed quiet time', () => {
    const below = checks({ active: true, recent: CHECK_SLOWDOWN_ALLOWED * ASSUMED_QUIET_MS - 1 });
    const slowBelow = new ImportPacer(below.times);
    slowBelow.restAfter(10);
    assert.equal(nextWindow(slowBelow, below.state), 10);
    const above = checks({ active: true, recent: CHECK_SLOWDOWN_ALLOWED * ASSUMED_QUIET_MS + 1 });
    const slowAbove = new ImportPacer(above.times);
    slowAbove.restAfter(10);
    assert.equal(nextWindow(slowAbove, above.state), 20);
  });

  it('given checks that stop, then the import rests no more, and starts again at half its time when they return', () => {
    const { state, times } = checks({ active: true, recent: 50, quiet: 5 });
    const pacer = new ImportPacer(times);
    pacer.restAfter(10);
    nextWindow(pacer, state);
    nextWindow(pacer, state);
    state.active = false;
    assert.equal(nextWindow(pacer, state), 0);
    state.active = true;
    assert.equal(pacer.restAfter(10), 10);
  });

  it('given a least rest, then each chunk rests that much more while checks come, and not at all without them', () => {
    const { state, times } = checks({ active: false, recent: 50, quiet: 5 });
    const pacer = new ImportPacer(times, { leastRest: 2 });
    assert.equal(nextWindow(pacer, state), 0);
    state.active = true;
    // Checks start: the paced rest (as long as the chunk) and twice the chunk on top.
    assert.equal(pacer.restAfter(10), 30);
    state.active = false;
    assert.equal(nextWindow(pacer, state), 0);
  });

  it('given a least share of all its time, then checks never slow the import', () => {
    const { state, times } = checks({ active: true, recent: 500, quiet: 5 });
    const pacer = new ImportPacer(times, { leastShare: 1 });
    assert.equal(pacer.checksActive(), false);
    assert.deepEqual([pacer.restAfter(10), nextWindow(pacer, state)], [0, 0]);
  });

  it('given checks at another gateway only, then chunks are kept short and rest, and the rest doubles while those checks are slow', () => {
    const { state, times } = checks({ active: false, recent: 0, count: 0 });
    let reading: ChecksElsewhereReading | undefined;
    const pacer = new ImportPacer(times, { elsewhere: { latest: () => reading } });
    assert.equal(pacer.checksActive(), false);
    assert.equal(pacer.restAfter(10), 0);
    reading = { seq: 1, active: true };
    assert.equal(pacer.checksActive(), true);
    assert.equal(pacer.restAfter(10), 10);
    reading = { seq: 2, active: true, slowdown: 4 };
    assert.equal(nextWindow(pacer, state), 20);
    reading = { seq: 3, active: true, slowdown: 4 };
    assert.equal(nextWindow(pacer, state), 40);
    reading = undefined;
    assert.equal(nextWindow(pacer, state), 0);
  });

  it('given this gateway quiet and another slow, then the slowest counts; a reading counts once', () => {
    const { state, times } = checks({ active: true, recent: 5, quiet: 5 });
    const reading: ChecksElsewhereReading = {
      seq: 1,
      active: true,
      slowdown: CHECK_SLOWDOWN_ALLOWED + 1,
    };
    const pacer = new ImportPacer(times, { elsewhere: { latest: () => reading } });
    pacer.restAfter(10);
    assert.equal(nextWindow(pacer, state), 20);
    // The same reading again: only this gateway's quiet checks are new, and the rest shrinks.
    assert.equal(nextWindow(pacer, state), 16);
    reading.seq = 2;
    reading.slowdown = 0.5;
    state.recent = 50;
    assert.equal(nextWindow(pacer, state), 32);
  });

  it('refuses a least share outside (0, 1]', () => {
    const { times } = checks({ active: false, recent: 0 });
    assert.throws(() => new ImportPacer(times, { leastShare: 0 }), RangeError);
    assert.throws(() => new ImportPacer(times, { leastShare: 1.5 }), RangeError);
  });
});
