import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { PriorityGate } from './priority-gate.js';

/** Work that runs until released; `started` tells whether it began. */
function heldWork() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const work = { started: false, release, run: async () => {} };
  work.run = async () => {
    work.started = true;
    await released;
  };
  return work;
}

async function turns(count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) await turn();
}

describe('priority gate', () => {
  it('given a single check in flight, when batch work comes, then it starts only once the check ends', async () => {
    const gate = new PriorityGate({ maxWaitMs: 60_000 });
    const single = heldWork();
    const singleDone = gate.high(single.run);
    const batch = heldWork();
    const batchDone = gate.low(batch.run);
    await turns(20);
    assert.equal(batch.started, false);
    single.release();
    await singleDone;
    await turns(20);
    assert.equal(batch.started, true);
    batch.release();
    await batchDone;
  });

  it('given single checks that never stop, when batch work waits, then it starts after the longest wait', async () => {
    const gate = new PriorityGate({ maxWaitMs: 5 });
    const single = heldWork();
    const singleDone = gate.high(single.run);
    const ran = await gate.low(async () => 'batch unit ran');
    assert.equal(ran, 'batch unit ran');
    assert.equal(single.started, true);
    single.release();
    await singleDone;
  });

  it('given a single check in flight, when long work yields to it, then it goes on only once the check ends', async () => {
    const gate = new PriorityGate({ maxWaitMs: 60_000 });
    const single = heldWork();
    const singleDone = gate.high(single.run);
    let yielded = false;
    const yielding = gate.yieldToHigh().then(() => (yielded = true));
    await turns(20);
    assert.equal(yielded, false);
    single.release();
    await singleDone;
    await yielding;
    assert.equal(yielded, true);
    // Nothing in flight: it goes on at once.
    await gate.yieldToHigh();
  });

  it('given a batch unit running, when another comes, then it waits for the first (one at a time)', async () => {
    const gate = new PriorityGate();
    const first = heldWork();
    const second = heldWork();
    const firstDone = gate.low(first.run);
    const secondDone = gate.low(second.run);
    await turns(20);
    assert.deepEqual([first.started, second.started], [true, false]);
    first.release();
    await firstDone;
    await turns(20);
    assert.equal(second.started, true);
    second.release();
    await secondDone;
  });

  it('a failed batch unit does not stop the next one', async () => {
    const gate = new PriorityGate();
    await assert.rejects(
      gate.low(async () => {
        throw new Error('unit failed');
      }),
      /unit failed/,
    );
    assert.equal(await gate.low(async () => 'next ran'), 'next ran');
  });

  it('a single check never waits for batch work', async () => {
    const gate = new PriorityGate();
    const batch = heldWork();
    const batchDone = gate.low(batch.run);
    await turns(5);
    assert.equal(await gate.high(async () => 'single ran'), 'single ran');
    batch.release();
    await batchDone;
  });

  it('given single checks active, when batch units follow each other, then each rests in proportion to the last', async () => {
    const gate = new PriorityGate({ maxWaitMs: 0, lowShare: 0.001 });
    await gate.high(async () => undefined);
    await gate.low(() => new Promise((resolve) => setTimeout(resolve, 2)));
    // 2 ms of batch work at a 0.1 % share: the next unit rests about 2 s.
    const second = heldWork();
    const secondDone = gate.low(second.run);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(second.started, false);
    second.release();
    await secondDone;
    assert.equal(second.started, true);
  });

  it('given no single check lately, when batch units follow each other, then they run back to back', async () => {
    const gate = new PriorityGate({ lowShare: 0.001 });
    await gate.low(() => new Promise((resolve) => setTimeout(resolve, 2)));
    const second = heldWork();
    const secondDone = gate.low(second.run);
    await turns(20);
    assert.equal(second.started, true);
    second.release();
    await secondDone;
  });
  describe('the times of single checks', () => {
    /** A gate on a clock the test moves; each check takes `ms` of it. */
    function timedGate() {
      const clock = { now: 0 };
      const gate = new PriorityGate({ now: () => clock.now });
      const check = (ms: number) =>
        gate.high(async () => {
          clock.now += ms;
        });
      return { clock, gate, check };
    }

    it('given checks since a moment, then their p90 and count are read', async () => {
      const { clock, gate, check } = timedGate();
      await check(100);
      clock.now += 1;
      const since = clock.now;
      for (let ms = 1; ms <= 10; ms++) await check(ms);
      assert.deepEqual(gate.highTimesSince(since, 0.9), { count: 10, quantile: 9 });
    });

    it('given fewer than twenty quiet checks, then their quiet time is not known yet', async () => {
      const { gate, check } = timedGate();
      for (let index = 0; index < 19; index++) await check(4);
      assert.equal(gate.quietHighTime(0.9), undefined);
      await check(4);
      assert.equal(gate.quietHighTime(0.9), 4);
    });

    it('given checks beside background work or a batch unit, then they are not counted as quiet', async () => {
      const { gate, check } = timedGate();
      for (let index = 0; index < 20; index++) await check(4);
      let endImport!: () => void;
      const importing = gate.background(
        () => new Promise<void>((resolve) => (endImport = resolve)),
      );
      for (let index = 0; index < 20; index++) await check(40);
      endImport();
      await importing;
      const unit = heldWork();
      const unitDone = gate.low(unit.run);
      await turns(5);
      for (let index = 0; index < 20; index++) await check(40);
      unit.release();
      await unitDone;
      assert.equal(gate.quietHighTime(0.9), 4);
      assert.equal(gate.highTimesSince(0, 1).quantile, 40);
    });

    it('tells whether background work is under way', async () => {
      const { gate } = timedGate();
      assert.equal(gate.backgroundActive(), false);
      let endImport!: () => void;
      const importing = gate.background(
        () => new Promise<void>((resolve) => (endImport = resolve)),
      );
      assert.equal(gate.backgroundActive(), true);
      endImport();
      await importing;
      assert.equal(gate.backgroundActive(), false);
      await assert.rejects(gate.background(async () => Promise.reject(new Error('failed'))));
      assert.equal(gate.backgroundActive(), false, 'a failed import is not under way');
    });

    it('tells whether checks came within its active window', async () => {
      const { clock, gate, check } = timedGate();
      assert.equal(gate.highActive(), false);
      await check(1);
      assert.equal(gate.highActive(), true);
      clock.now += 1_000;
      assert.equal(gate.highActive(), false);
    });
  });
});
