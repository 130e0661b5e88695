import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { whileWaiting } from './while-waiting.js';

/** Yields 1, 2 at once, then 3 after a wait; notes when it was told to stop. */
function source(log: string[]): AsyncIterable<number> {
  return {
    [Symbol.asyncIterator]() {
      let at = 0;
      return {
        async next() {
          at += 1;
          if (at === 3) await sleep(20);
          return at <= 3 ? { done: false, value: at } : { done: true, value: undefined };
        },
        async return() {
          log.push('returned');
          return { done: true, value: undefined };
        },
      };
    },
  };
}

describe('whileWaiting', () => {
  it('given items that come at once, then no work runs; given one that waits, then the work runs before it', async () => {
    const log: string[] = [];
    const work = async () => void log.push('work');
    for await (const item of whileWaiting(source(log), () => work)) log.push(`item ${item}`);
    assert.deepEqual(log, ['item 1', 'item 2', 'work', 'item 3']);
  });

  it('given no work pending, then nothing runs and every item comes', async () => {
    const log: string[] = [];
    for await (const item of whileWaiting(source(log), () => undefined)) log.push(`item ${item}`);
    assert.deepEqual(log, ['item 1', 'item 2', 'item 3']);
  });

  it('given a consumer that stops early, then the source is told to stop', async () => {
    const log: string[] = [];
    for await (const item of whileWaiting(source(log), () => undefined)) if (item === 1) break;
    assert.deepEqual(log, ['returned']);
  });

  it('given a source that fails while the work runs, then the failure reaches the consumer', async () => {
    const failing: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: () => sleep(5).then(() => Promise.reject(new Error('cut off'))),
      }),
    };
    let worked = 0;
    const work = () => sleep(20).then(() => void (worked += 1));
    await assert.rejects(async () => {
      for await (const _ of whileWaiting(failing, () => work)) assert.fail('no item');
    }, /cut off/);
    assert.equal(worked, 1);
  });
});
