import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VerificationEnd } from '@vop/contracts';
import { CompletionWaiters } from './waiters.js';

const completion = (verificationId: string): VerificationEnd => ({
  type: 'VerificationCompleted',
  data: {
    verificationId,
    family: 'scheme',
    outcome: 'MTCH',
    score: 1,
    reasons: [],
    completedAt: '2026-01-01T00:00:00.000Z',
  },
});
const failure = (verificationId: string): VerificationEnd => ({
  type: 'VerificationFailed',
  data: { verificationId, family: 'scheme', reason: 'ERROR', failedAt: '2026-01-01T00:00:00.000Z' },
});

describe('CompletionWaiters', () => {
  it('resolves a waiter at once when its completion is notified', async () => {
    const waiters = new CompletionWaiters({ lookup: async () => [] });
    const waiting = waiters.wait('a', 5000);
    waiters.notify(completion('a'));
    assert.deepEqual(await waiting, completion('a'));
    assert.equal(waiters.size, 0);
  });

  it('says which verifications a caller here waits for, until its end arrives', async () => {
    const waiters = new CompletionWaiters({ lookup: async () => [] });
    const waiting = waiters.wait('a', 5000);
    assert.equal(waiters.isWaiting('a'), true);
    assert.equal(waiters.isWaiting('another instance'), false);
    waiters.notify(completion('a'));
    await waiting;
    assert.equal(waiters.isWaiting('a'), false);
  });

  it('finds a completion whose notification was missed with one sweep query for all overdue waiters', async () => {
    const queries: string[][] = [];
    const waiters = new CompletionWaiters({
      fallbackPollMs: 20,
      lookup: async (ids) => {
        queries.push([...ids].sort());
        return ids.filter((id) => id !== 'never').map(completion);
      },
    });
    const [a, b] = await Promise.all([waiters.wait('a', 5000), waiters.wait('b', 5000)]);
    assert.equal(a?.data.verificationId, 'a');
    assert.equal(b?.data.verificationId, 'b');
    assert.deepEqual(queries[0], ['a', 'b']);
  });

  it('resolves a waiter with the failure when its verification fails, and ignores a later end', async () => {
    const waiters = new CompletionWaiters({ lookup: async () => [] });
    const waiting = waiters.wait('a', 5000);
    waiters.notify(failure('a'));
    waiters.notify(completion('a'));
    assert.deepEqual(await waiting, failure('a'));
  });

  it('gives undefined at the deadline and forgets the waiter', async () => {
    const waiters = new CompletionWaiters({ fallbackPollMs: 10, lookup: async () => [] });
    assert.equal(await waiters.wait('never', 50), undefined);
    assert.equal(waiters.size, 0);
  });
});
