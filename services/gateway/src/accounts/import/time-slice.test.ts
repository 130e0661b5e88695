import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimeSlice } from './time-slice.js';

describe('the import time slice', () => {
  it('is not due within its slice, is due once the slice has passed, and passing begins a new slice', async () => {
    let now = 1_000;
    const slice = new TimeSlice(5, () => now);
    now += 4.9;
    assert.equal(slice.due(), false);
    now += 0.1;
    assert.equal(slice.due(), true);
    await slice.pass();
    assert.equal(slice.due(), false);
  });

  it('given a callback queued while the import works, then passing lets it run before the import goes on', async () => {
    const slice = new TimeSlice(0);
    const order: string[] = [];
    setImmediate(() => order.push('check'));
    order.push('import, before');
    if (slice.due()) await slice.pass();
    order.push('import, after');
    assert.deepEqual(order, ['import, before', 'check', 'import, after']);
  });
});
