import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closeQuietly, startInOrder, type StartPart } from './start-in-order.js';

/** Parts that write what they do to `log`; the one named `failing` throws on start. */
function parts(log: string[], names: string[], failing?: string): StartPart[] {
  return names.map((name) => ({
    start: async () => {
      log.push(`start ${name}`);
      if (name === failing) throw new Error(`${name} failed`);
    },
    stop: async () => {
      log.push(`stop ${name}`);
    },
  }));
}

describe('startInOrder', () => {
  it('given parts, when all start, then they start in order and none is stopped', async () => {
    const log: string[] = [];

    await startInOrder(parts(log, ['store', 'subscriptions', 'relay']));

    assert.deepEqual(log, ['start store', 'start subscriptions', 'start relay']);
  });

  it('given a part that fails, then it and the earlier parts stop in reverse, and the failure is thrown', async () => {
    const log: string[] = [];

    await assert.rejects(
      startInOrder(parts(log, ['store', 'subscriptions', 'relay', 'sweeper'], 'relay')),
      /relay failed/,
    );

    assert.deepEqual(log, [
      'start store',
      'start subscriptions',
      'start relay',
      'stop relay',
      'stop subscriptions',
      'stop store',
    ]);
  });

  it('given a stop that fails while undoing, then the others still stop and the start failure is thrown', async () => {
    const log: string[] = [];
    const [store, subscriptions, relay] = parts(log, ['store', 'subscriptions', 'relay'], 'relay');
    const brokenStop: StartPart = {
      start: subscriptions!.start,
      stop: async () => {
        log.push('stop subscriptions');
        throw new Error('close failed');
      },
    };
    const withoutStop: StartPart = { start: async () => void log.push('start topics') };

    await assert.rejects(startInOrder([store!, withoutStop, brokenStop, relay!]), /relay failed/);

    assert.deepEqual(log.slice(-3), ['stop relay', 'stop subscriptions', 'stop store']);
  });
});

describe('closeQuietly', () => {
  it('given opened parts, one failing to close, then every one is closed and the list is emptied', async () => {
    const closed: string[] = [];
    const opened = ['a', 'b', 'c'].map((name) => ({
      close: async () => {
        closed.push(name);
        if (name === 'a') throw new Error('a failed to close');
      },
    }));

    await closeQuietly(opened);

    assert.deepEqual(closed, ['a', 'b', 'c']);
    assert.deepEqual(opened, []);
  });
});
