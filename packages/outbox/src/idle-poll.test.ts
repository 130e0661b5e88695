import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdlePoll } from './idle-poll.js';

describe('the fallback poll of an idle loop', () => {
  it('given polls that find nothing, when each asks for its wait, then the wait doubles up to the slowest', () => {
    const poll = new IdlePoll(500, 3_000);

    const waits = [poll.next(), poll.next(), poll.next(), poll.next(), poll.next()];

    assert.deepEqual(waits, [500, 1_000, 2_000, 3_000, 3_000]);
  });

  it('given a poll backed off to the slowest, when work is found, then the next wait is the fastest again', () => {
    const poll = new IdlePoll(500, 30_000);
    for (let round = 0; round < 10; round++) poll.next();

    poll.snapBack();

    assert.deepEqual([poll.next(), poll.next()], [500, 1_000]);
  });

  it('given a slowest wait below the fastest, when the poll is made, then it is refused', () => {
    assert.throws(() => new IdlePoll(500, 100), RangeError);
  });
});
