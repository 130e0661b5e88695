import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConcurrencyGate } from './concurrency-gate.js';

const open = () => new AbortController().signal;

describe('the concurrency gate of one responder', () => {
  it('given the limit reached, when a call comes, then it waits and enters as a slot frees', async () => {
    const gate = createConcurrencyGate(2, 1);
    assert.equal(await gate.enter(open()), true);
    assert.equal(await gate.enter(open()), true);

    const third = gate.enter(open());
    assert.equal(gate.waiting(), 1);
    gate.release();

    assert.equal(await third, true);
    assert.equal(gate.inFlight(), 2);
  });

  it('given the limit reached and the queue full, when a call comes, then it is refused at once', async () => {
    const gate = createConcurrencyGate(1, 1);
    await gate.enter(open());
    void gate.enter(open());

    assert.equal(await gate.enter(open()), false);
    assert.equal(gate.waiting(), 1);
  });

  it('given a waiting call, when its signal aborts, then it leaves the queue without a slot', async () => {
    const gate = createConcurrencyGate(1, 4);
    await gate.enter(open());
    const deadline = new AbortController();
    const waiting = gate.enter(deadline.signal);

    deadline.abort();

    assert.equal(await waiting, false);
    assert.equal(gate.waiting(), 0);
    gate.release();
    assert.equal(gate.inFlight(), 0);
  });
});
