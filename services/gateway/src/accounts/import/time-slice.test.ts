import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { PriorityGate } from '@vop/messaging';
import { TimeSlice } from './time-slice.js';

describe('the import time slice', () => {
  it('is not due within its slice, is due once the slice has passed, and passing begins a new slice', async () => {
    let now = 1_000;
    const slice = new TimeSlice(5, undefined, () => now);
    now += 4.9;
    assert.equal(slice.due(), false);
    now += 0.1;
    assert.equal(slice.due(), true);
    await slice.pass();
    assert.equal(slice.due(), false);
  });

  it('given a single check in flight, then passing waits for it to end', async () => {
    const gate = new PriorityGate({ maxWaitMs: 60_000 });
    let endCheck!: () => void;
    const check = gate.high(() => new Promise<void>((resolve) => (endCheck = resolve)));
    const slice = new TimeSlice(0, gate);
    let passed = false;
    const passing = slice.pass().then(() => (passed = true));
    for (let index = 0; index < 20; index += 1) await turn();
    assert.equal(passed, false);
    endCheck();
    await check;
    await passing;
    assert.equal(passed, true);
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
