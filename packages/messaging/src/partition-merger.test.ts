import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PartitionMerger } from './kafka/partition-merger.js';
import type { IncomingMessage } from './types.js';

function messages(partition: number, count: number): IncomingMessage[] {
  return Array.from({ length: count }, (_, offset) => ({
    topic: 't',
    partition,
    offset: String(offset),
    key: `k${partition}`,
    value: `${partition}:${offset}`,
    headers: {},
  }));
}

describe('partition merger', () => {
  it('given partitions fetched together, then one call gets their batches, each in order', async () => {
    const calls: string[][] = [];
    const merger = new PartitionMerger(async (batch) => {
      calls.push(batch.map((message) => message.value));
    }, 500);
    await Promise.all([merger.deliver(messages(0, 2)), merger.deliver(messages(1, 1))]);
    assert.deepEqual(calls, [['0:0', '0:1', '1:0']]);
  });

  it('given a call running, then batches arriving meanwhile share the next call, up to the maximum', async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const merger = new PartitionMerger(async (batch) => {
      calls.push(batch.map((message) => message.value));
      if (calls.length === 1) await held;
    }, 3);
    const first = merger.deliver(messages(0, 1));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [
      merger.deliver(messages(1, 2)),
      merger.deliver(messages(2, 1)),
      merger.deliver(messages(3, 1)),
    ];
    release();
    await Promise.all([first, ...later]);
    assert.deepEqual(calls, [['0:0'], ['1:0', '1:1', '2:0'], ['3:0']]);
  });

  it('given a failing call, then every batch in it is told, and later calls go on', async () => {
    let calls = 0;
    const merger = new PartitionMerger(async () => {
      calls++;
      if (calls === 1) throw new Error('poison');
    }, 500);
    const results = await Promise.allSettled([
      merger.deliver(messages(0, 1)),
      merger.deliver(messages(1, 1)),
    ]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    await merger.deliver(messages(2, 1));
    assert.equal(calls, 2);
  });
});
