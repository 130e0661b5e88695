import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { keyPartitioner } from './kafka/key-partitioner.js';
import { murmur2, partitionFor } from './partitioner.js';

function metadataOf(partitions: number): PartitionMetadata[] {
  return Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 1,
    partitionErrorCode: 0,
    replicas: [1],
    isr: [1],
  }));
}

function kafkajsPartition(key: string, partitions: number): number {
  const partitioner = Partitioners.DefaultPartitioner();
  return partitioner({
    topic: 't',
    partitionMetadata: metadataOf(partitions),
    message: { key, value: '' },
  });
}

describe('partitionFor', () => {
  it('agrees with the Kafka default partitioner for keys of every tail length and script', () => {
    const keys = [
      '',
      'a',
      'ab',
      'abc',
      'abcd',
      'abcde',
      'DE89370400440532013000',
      'vrf_01HZX',
      'Zoë Ørsted',
      '名前',
      '🙂🙂',
    ];
    for (let index = 0; index < 200; index++) keys.push(`key-${index}-${'x'.repeat(index % 7)}`);
    for (const partitions of [1, 3, 8, 12]) {
      for (const key of keys) {
        assert.equal(
          partitionFor(key, partitions),
          kafkajsPartition(key, partitions),
          `${key} over ${partitions}`,
        );
      }
    }
  });

  it("the Kafka bus's producer puts a message where kafkajs's default partitioner does: by its key (text or bytes), else its own partition first", () => {
    const ours = keyPartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    for (const partitions of [1, 3, 8, 12]) {
      const partitionMetadata = metadataOf(partitions);
      for (let index = 0; index < 2_000; index++) {
        const text = `${index % 3 === 0 ? 'DE' : 'vrf-'}${index}${'ü'.repeat(index % 5)}`;
        for (const key of [text, Buffer.from(text)]) {
          const message = { key, value: '' };
          assert.equal(
            ours({ topic: 't', partitionMetadata, message }),
            theirs({ topic: 't', partitionMetadata, message }),
            `${text} over ${partitions}`,
          );
        }
      }
    }
    const partitionMetadata = metadataOf(8);
    const message = { key: 'DE89370400440532013000', value: '', partition: 5 };
    assert.equal(ours({ topic: 't', partitionMetadata, message }), 5);
    const unkeyed = new Set(
      Array.from({ length: 64 }, () =>
        ours({ topic: 't', partitionMetadata, message: { value: '' } }),
      ),
    );
    assert.equal(unkeyed.size, 8, 'messages without a key go round the partitions');
  });

  it('matches published murmur2 values of the Java client', () => {
    // Values from Kafka's UtilsTest.testMurmur2.
    const cases: Array<[string, number]> = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ];
    for (const [key, expected] of cases)
      assert.equal(murmur2(new TextEncoder().encode(key)), expected, key);
  });

  it('spreads keys over all partitions and rejects an invalid partition count', () => {
    const used = new Set(Array.from({ length: 500 }, (_, index) => partitionFor(`k${index}`, 8)));
    assert.deepEqual([...used].sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.throws(() => partitionFor('k', 0), RangeError);
    assert.throws(() => partitionFor('k', 1.5), RangeError);
  });
});
