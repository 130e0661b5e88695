import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTransientError } from './transient-errors.js';
import { startWithRetry } from './start-with-retry.js';

const quiet = { warn: () => undefined };
const noSleep = async () => undefined;

function kafkaProtocolError(type: string): Error {
  return Object.assign(new Error(type), { name: 'KafkaJSProtocolError', type, retriable: true });
}

describe('startWithRetry', () => {
  it('given transient failures, when starting, then it retries until the start succeeds', async () => {
    const failures = [
      kafkaProtocolError('NOT_LEADER_FOR_PARTITION'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    ];
    let calls = 0;
    const attempts = await startWithRetry({
      what: 'test service',
      logger: quiet,
      sleep: noSleep,
      start: async () => {
        const failure = failures[calls++];
        if (failure) throw failure;
      },
    });
    assert.equal(attempts, 4);
  });

  it('given a non-transient failure, when starting, then it throws at once', async () => {
    let calls = 0;
    await assert.rejects(
      startWithRetry({
        what: 'test service',
        logger: quiet,
        sleep: noSleep,
        start: async () => {
          calls++;
          throw Object.assign(new Error('relation exists with another type'), { code: '42P07' });
        },
      }),
      /another type/,
    );
    assert.equal(calls, 1);
  });
});

describe('isTransientError', () => {
  it('sees a retriable cause inside a wrapper, and refuses plain errors', () => {
    const wrapped = Object.assign(new Error('start failed'), {
      cause: Object.assign(new Error('x'), { name: 'KafkaJSConnectionError' }),
    });
    assert.equal(isTransientError(wrapped), true);
    assert.equal(isTransientError(new TypeError('undefined is not a function')), false);
    assert.equal(isTransientError(Object.assign(new Error('no'), { code: '23505' })), false);
  });
});
