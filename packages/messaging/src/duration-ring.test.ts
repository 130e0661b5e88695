import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DurationRing } from './duration-ring.js';

describe('duration ring', () => {
  it('given no units, then a quantile is of none', () => {
    assert.deepEqual(new DurationRing(4).quantile(0.9), { count: 0, value: 0 });
  });

  it('reads a quantile by nearest rank', () => {
    const ring = new DurationRing(100);
    for (let duration = 1; duration <= 10; duration++) ring.add(duration, duration);
    assert.deepEqual(ring.quantile(0.9), { count: 10, value: 9 });
    assert.deepEqual(ring.quantile(0.5), { count: 10, value: 5 });
    assert.deepEqual(ring.quantile(1), { count: 10, value: 10 });
    assert.deepEqual(ring.quantile(0), { count: 10, value: 1 });
  });

  it('reads only the units that ended at or after a moment', () => {
    const ring = new DurationRing(100);
    ring.add(100, 50);
    ring.add(200, 7);
    ring.add(300, 3);
    assert.deepEqual(ring.quantile(1, 200), { count: 2, value: 7 });
    assert.deepEqual(ring.quantile(1, 301), { count: 0, value: 0 });
  });

  it('keeps only the last units it has room for', () => {
    const ring = new DurationRing(3);
    for (const duration of [90, 80, 1, 2, 3]) ring.add(duration, duration);
    assert.deepEqual(ring.quantile(1), { count: 3, value: 3 });
  });

  it('refuses a capacity that is not a positive integer', () => {
    assert.throws(() => new DurationRing(0), RangeError);
    assert.throws(() => new DurationRing(1.5), RangeError);
  });
});
