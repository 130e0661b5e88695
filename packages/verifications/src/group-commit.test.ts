import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { GroupCommit } from './group-commit.js';

/** A flush the test ends by hand: each call is a round, resolved or failed when the test says so. */
function controlledFlush() {
  const rounds: { items: number[]; finish: () => void; fail: (error: Error) => void }[] = [];
  const flush = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      rounds.push({ items, finish: resolve, fail: reject });
    });
  return { rounds, flush };
}

const itemsOf = (rounds: { items: number[] }[]) => rounds.map((round) => round.items);

describe('GroupCommit', () => {
  it('writes the items submitted in one turn as one round', async () => {
    const { rounds, flush } = controlledFlush();
    const commit = new GroupCommit(flush);
    const done = [1, 2, 3].map((item) => commit.submit(item));
    await nextTurn();
    assert.deepEqual(itemsOf(rounds), [[1, 2, 3]]);
    rounds[0]!.finish();
    await Promise.all(done);
  });

  it('prepares a second round while the first is written, and a third only when one ends', async () => {
    const { rounds, flush } = controlledFlush();
    const commit = new GroupCommit(flush, { maxInFlight: 2 });
    const first = commit.submit(1);
    await nextTurn();
    const second = [commit.submit(2), commit.submit(3)];
    await nextTurn();
    const third = [commit.submit(4), commit.submit(5)];
    await nextTurn();
    await nextTurn();
    assert.deepEqual(
      itemsOf(rounds),
      [[1], [2, 3]],
      'two rounds in flight, the items after them wait',
    );

    rounds[1]!.finish();
    await Promise.all(second);
    await nextTurn();
    assert.deepEqual(
      itemsOf(rounds),
      [[1], [2, 3], [4, 5]],
      'the waiting items share the round that starts when one ends',
    );
    rounds[0]!.finish();
    rounds[2]!.finish();
    await Promise.all([first, ...third]);
  });

  it('with one round in flight, everything submitted meanwhile waits for it', async () => {
    const { rounds, flush } = controlledFlush();
    const commit = new GroupCommit(flush, { maxInFlight: 1 });
    const first = commit.submit(1);
    await nextTurn();
    const later = [commit.submit(2), commit.submit(3)];
    await nextTurn();
    assert.equal(rounds.length, 1);
    rounds[0]!.finish();
    await first;
    await nextTurn();
    assert.deepEqual(itemsOf(rounds), [[1], [2, 3]]);
    rounds[1]!.finish();
    await Promise.all(later);
  });

  it("gives each item's submitter its own result of the round", async () => {
    const commit = new GroupCommit((items: number[]) =>
      Promise.resolve(items.map((item) => item * 10)),
    );
    const results = await Promise.all([1, 2, 3].map((item) => commit.submit(item)));
    assert.deepEqual(results, [10, 20, 30]);
  });

  it('a failed round rejects only its own items', async () => {
    const { rounds, flush } = controlledFlush();
    const commit = new GroupCommit(flush, { maxInFlight: 2 });
    const failing = [commit.submit(1), commit.submit(2)];
    await nextTurn();
    const succeeding = commit.submit(3);
    await nextTurn();
    rounds[0]!.fail(new Error('statement refused'));
    rounds[1]!.finish();
    for (const result of await Promise.allSettled(failing))
      assert.deepEqual(
        result.status === 'rejected' ? (result.reason as Error).message : result.status,
        'statement refused',
      );
    await succeeding;
  });

  it('a flush that throws before returning a promise rejects its round and frees its slot', async () => {
    let calls = 0;
    const commit = new GroupCommit<number>(
      (items) => {
        calls += 1;
        if (items.includes(1)) throw new Error('thrown at once');
        return Promise.resolve();
      },
      { maxInFlight: 1 },
    );
    await assert.rejects(commit.submit(1), /thrown at once/);
    await commit.submit(2);
    assert.equal(calls, 2);
  });

  it('splits a turn larger than maxBatch into rounds of at most maxBatch', async () => {
    const { rounds, flush } = controlledFlush();
    const commit = new GroupCommit(flush, { maxBatch: 2, maxInFlight: 2 });
    const done = [1, 2, 3, 4, 5].map((item) => commit.submit(item));
    await nextTurn();
    await nextTurn();
    assert.deepEqual(itemsOf(rounds), [
      [1, 2],
      [3, 4],
    ]);
    rounds[0]!.finish();
    await nextTurn();
    await nextTurn();
    assert.deepEqual(rounds[2]?.items, [5]);
    rounds[1]!.finish();
    rounds[2]!.finish();
    await Promise.all(done);
  });

  it('refuses a limit of rounds that is not a positive integer', () => {
    assert.throws(
      () => new GroupCommit(() => Promise.resolve(), { maxInFlight: 0 }),
      /maxInFlight/,
    );
  });

  describe('with gatherMs', () => {
    // Only setTimeout is mocked: the turns the tests await (setImmediate) are real, and the gathering
    // timer fires only when a test moves the mocked clock on.
    beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
    afterEach(() => mock.timers.reset());
    const passMs = (ms: number) => mock.timers.tick(ms);

    /** A commit whose first round, after a quiet spell, started at once and has ended. */
    async function afterAQuietRound(limits: { gatherMs: number; maxBatch?: number }) {
      const { rounds, flush } = controlledFlush();
      const commit = new GroupCommit(flush, limits);
      const first = commit.submit(1);
      await nextTurn();
      assert.deepEqual(itemsOf(rounds), [[1]], 'an item after a quiet spell goes at once');
      rounds[0]!.finish();
      await first;
      return { rounds, commit };
    }

    it('starts a round after a quiet spell at once', async () => {
      await afterAQuietRound({ gatherMs: 60_000 });
    });

    it('gathers the items of later turns until gatherMs after the previous round started', async () => {
      const { rounds, commit } = await afterAQuietRound({ gatherMs: 60_000 });
      const later = [commit.submit(2)];
      await nextTurn();
      later.push(commit.submit(3));
      await nextTurn();
      later.push(commit.submit(4));
      await nextTurn();
      assert.equal(rounds.length, 1, 'the items of three turns wait, the round ended or not');

      passMs(60_000);
      await nextTurn();
      assert.deepEqual(
        itemsOf(rounds),
        [[1], [2, 3, 4]],
        'they share one round once the time is up',
      );
      rounds[1]!.finish();
      await Promise.all(later);
    });

    it('starts a full round without waiting out the gathering time', async () => {
      const { rounds, commit } = await afterAQuietRound({ gatherMs: 60_000, maxBatch: 2 });
      const later = [commit.submit(2)];
      await nextTurn();
      assert.equal(rounds.length, 1, 'one item waits');
      later.push(commit.submit(3), commit.submit(4));
      await nextTurn();
      assert.deepEqual(itemsOf(rounds), [[1], [2, 3]], 'maxBatch items go at once; the rest waits');
      rounds[1]!.finish();
      await nextTurn();
      assert.equal(rounds.length, 2, 'the rest waits for the gathering time after the full round');
      passMs(60_000);
      await nextTurn();
      assert.deepEqual(rounds[2]?.items, [4]);
      rounds[2]!.finish();
      await Promise.all(later);
    });

    it('refuses a negative gathering time', () => {
      assert.throws(() => new GroupCommit(() => Promise.resolve(), { gatherMs: -1 }), /gatherMs/);
    });
  });
});
