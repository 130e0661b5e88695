import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ContentionPacer } from './contention-pacer.js';

describe('contention pacer', () => {
  it('given a calm machine, then units run without rest', () => {
    const pacer = new ContentionPacer();
    assert.equal(pacer.observe(0), 0);
    assert.equal(pacer.observe(0.05), 0);
  });

  it('given contended samples, then the rest doubles from one step up to its bound', () => {
    const pacer = new ContentionPacer({ stepMs: 20, maxRestMs: 100 });
    assert.deepEqual(
      [0.5, 0.5, 0.5, 0.5].map((share) => pacer.observe(share)),
      [20, 40, 80, 100],
    );
  });

  it('given calm samples after contention, then the rest shrinks one step at a time', () => {
    const pacer = new ContentionPacer({ stepMs: 20 });
    for (let index = 0; index < 3; index += 1) pacer.observe(0.9);
    assert.deepEqual(
      [0, 0, 0, 0, 0].map((share) => pacer.observe(share)),
      [60, 40, 20, 0, 0],
    );
  });

  it('given a thread that waits for a CPU half of the time, when sampled, then units rest', async () => {
    const startedAt = performance.now();
    const pacer = new ContentionPacer({
      sampleMs: 10,
      readRunQueueWaitMs: () => (performance.now() - startedAt) / 2,
    });
    pacer.start();
    try {
      for (let waited = 0; pacer.rest === 0 && waited < 30_000; waited += 10) await delay(10);
      assert.ok(pacer.rest > 0);
      let ran = false;
      await pacer.run(async () => {
        ran = true;
      });
      assert.equal(ran, true);
    } finally {
      pacer.stop();
    }
  });

  it('given nothing to read (not Linux), then it never rests', async () => {
    const pacer = new ContentionPacer({ sampleMs: 5, readRunQueueWaitMs: () => undefined });
    pacer.start();
    await delay(50);
    assert.equal(pacer.rest, 0);
    pacer.stop();
  });
});
