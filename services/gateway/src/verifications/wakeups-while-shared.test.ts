import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Subscription } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import { WakeupsWhileShared } from './wakeups-while-shared.js';

const logger = createLogger({ service: 'gateway-test', level: 'silent' });

/** Counts the waiters subscriptions opened and closed; `failNext` makes the next subscribe throw. */
function fakeGroup() {
  const state = { opened: 0, closed: 0, failNext: 0 };
  const subscribe = async (): Promise<Subscription> => {
    if (state.failNext > 0) {
      state.failNext--;
      throw new Error('broker not reachable');
    }
    state.opened++;
    return {
      close: async () => {
        state.closed++;
      },
    };
  };
  return { state, subscribe };
}

describe('WakeupsWhileShared: the waiters group only while the results group is shared', () => {
  it('subscribes while shared, closes when the results group holds every partition, follows the last wish', async () => {
    const { state, subscribe } = fakeGroup();
    const wakeups = new WakeupsWhileShared(subscribe, logger);
    wakeups.resultsShared(true);
    await wakeups.whenSettled();
    assert.deepEqual([state.opened, state.closed, wakeups.subscribed], [1, 0, true]);

    wakeups.resultsShared(false);
    await wakeups.whenSettled();
    assert.deepEqual([state.opened, state.closed, wakeups.subscribed], [1, 1, false]);

    // Switched back and forth before anything ran: only the last wish counts.
    wakeups.resultsShared(true);
    wakeups.resultsShared(false);
    wakeups.resultsShared(true);
    await wakeups.whenSettled();
    assert.deepEqual([state.opened, state.closed, wakeups.subscribed], [2, 1, true]);
    await wakeups.close();
    assert.equal(state.closed, 2);
  });

  it('once closed, never subscribes again (the results group stopping says it lost its partitions)', async () => {
    const { state, subscribe } = fakeGroup();
    const wakeups = new WakeupsWhileShared(subscribe, logger);
    wakeups.resultsShared(false);
    await wakeups.whenSettled();
    await wakeups.close();
    wakeups.resultsShared(true);
    await wakeups.whenSettled();
    assert.deepEqual([state.opened, wakeups.subscribed], [0, false]);
  });

  it('tries a failed subscription again', async () => {
    const { state, subscribe } = fakeGroup();
    state.failNext = 1;
    const wakeups = new WakeupsWhileShared(subscribe, logger);
    wakeups.resultsShared(true);
    await wakeups.whenSettled();
    assert.equal(wakeups.subscribed, false);
    const deadline = Date.now() + 5_000;
    while (!wakeups.subscribed && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(wakeups.subscribed, true);
    assert.equal(state.opened, 1);
    await wakeups.close();
  });
});
