import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import kafkajs, { type Producer } from 'kafkajs';
import { breaksProducerSequence, CoalescingPublisher } from './coalescing-publisher.js';

const { KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } = kafkajs;

/** The broker's answer as kafkajs raises it (its constructor takes an entry of its error-code table). */
function protocolError(type: string, code: number): Error {
  const entry = { type, code, retriable: false, message: type };
  return new KafkaJSProtocolError(entry as unknown as Error);
}

/** kafkajs's own error after its retries, wrapping the broker's answer (as its producer throws it). */
function afterRetries(type: string, code: number): Error {
  return new KafkaJSNumberOfRetriesExceeded(protocolError(type, code), {
    retryCount: 8,
    retryTime: 2000,
  });
}

/**
 * A publisher over stand-ins for kafkajs's Producer (sends fail with `failWith()` while it returns an
 * error), counting the producers made and how often the publisher asked for a new one.
 */
function publisherOver(failWith: () => Error | undefined) {
  const made: { sent: number }[] = [];
  let current: Promise<Producer> | undefined;
  let replaced = 0;
  const make = (): Producer => {
    const state = { sent: 0 };
    made.push(state);
    return {
      send: async () => {
        const error = failWith();
        if (error) throw error;
        state.sent++;
        return [];
      },
    } as unknown as Producer;
  };
  const publisher = new CoalescingPublisher(
    () => (current ??= Promise.resolve(make())),
    async () => {
      replaced++;
      current = undefined;
    },
  );
  return { publisher, made, replaced: () => replaced };
}

describe('the coalescing publisher after a broken producer sequence', () => {
  it('given OUT_OF_ORDER_SEQUENCE_NUMBER after the retries, when a publish fails, then the next publish goes through a new producer', async () => {
    let failing: Error | undefined = afterRetries('OUT_OF_ORDER_SEQUENCE_NUMBER', 45);
    const { publisher, made, replaced } = publisherOver(() => failing);
    await assert.rejects(publisher.publish('things', [{ key: 'k', value: 'v1' }]));
    assert.equal(replaced(), 1);
    failing = undefined;
    await publisher.publish('things', [{ key: 'k', value: 'v2' }]);
    assert.equal(made.length, 2);
    assert.deepEqual(
      made.map((producer) => producer.sent),
      [0, 1],
    );
  });

  it('given an error that leaves the sequence intact (a missing topic), when a publish fails, then the producer is kept', async () => {
    let failing: Error | undefined = afterRetries('UNKNOWN_TOPIC_OR_PARTITION', 3);
    const { publisher, made, replaced } = publisherOver(() => failing);
    await assert.rejects(publisher.publish('missing', [{ key: 'k', value: 'v1' }]));
    failing = undefined;
    await publisher.publish('things', [{ key: 'k', value: 'v2' }]);
    assert.equal(replaced(), 0);
    assert.equal(made.length, 1);
  });

  it('knows the sequence errors directly and wrapped, and no others', () => {
    assert.equal(breaksProducerSequence(afterRetries('UNKNOWN_PRODUCER_ID', 59)), true);
    assert.equal(breaksProducerSequence(protocolError('INVALID_PRODUCER_EPOCH', 47)), true);
    assert.equal(breaksProducerSequence(afterRetries('NOT_LEADER_FOR_PARTITION', 6)), false);
    assert.equal(breaksProducerSequence(new Error('connect ECONNREFUSED')), false);
    assert.equal(breaksProducerSequence(undefined), false);
  });
});
