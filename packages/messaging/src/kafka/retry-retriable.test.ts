import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryRetriable } from './retry-retriable.js';

const retriable = () => Object.assign(new Error('NOT_LEADER_FOR_PARTITION'), { retriable: true });

describe('retryRetriable', () => {
  it('given retriable failures, then it tries again until the work succeeds', async () => {
    let calls = 0;
    const result = await retryRetriable(async () => {
      calls += 1;
      if (calls < 3) throw retriable();
      return 'done';
    });
    assert.equal(result, 'done');
    assert.equal(calls, 3);
  });

  it('given a failure that is not retriable, then it fails at once', async () => {
    let calls = 0;
    await assert.rejects(
      retryRetriable(async () => {
        calls += 1;
        throw new Error('authorization failed');
      }),
      /authorization failed/,
    );
    assert.equal(calls, 1);
  });

  it('given only retriable failures, then it gives up after the attempts', async () => {
    let calls = 0;
    await assert.rejects(
      retryRetriable(async () => {
        calls += 1;
        throw retriable();
      }, 3),
      /NOT_LEADER_FOR_PARTITION/,
    );
    assert.equal(calls, 3);
  });
});
