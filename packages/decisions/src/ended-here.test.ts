import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndedHere } from './ended-here.js';

describe('ends applied where they were recorded (EndedHere)', () => {
  it('given an end recorded here, when its completion comes back, then it is taken once', () => {
    const ended = new EndedHere();
    ended.add('v-1');
    assert.equal(ended.take('v-1'), true);
    assert.equal(ended.take('v-1'), false, 'a redelivery is applied by the guarded update');
    assert.equal(ended.take('v-2'), false, 'an end recorded elsewhere is applied');
  });

  it('given ends whose completions another gateway reads, when more than the bound are added, then the oldest are forgotten', () => {
    const ended = new EndedHere(3);
    for (const id of ['v-1', 'v-2', 'v-3', 'v-4', 'v-5']) ended.add(id);
    assert.equal(ended.size, 3);
    assert.equal(ended.take('v-1'), false);
    assert.equal(ended.take('v-2'), false);
    assert.equal(ended.take('v-5'), true);
  });
});
