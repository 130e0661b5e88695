import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '@vop/http';
import { eventLoopTurnsDuring } from '@vop/testing';
import { parseIbanEntries } from './submission.js';

const entries = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: String(index),
    iban: 'DE89370400440532013000',
    name: `Holder ${index}`,
  }));

describe('batch submission entries', () => {
  it('checks thousands of entries with the event loop turning between groups of them', async () => {
    const { result: parsed, turns } = await eventLoopTurnsDuring(() =>
      parseIbanEntries(entries(2000)),
    );
    assert.equal(parsed.length, 2000);
    assert.ok(turns >= 3, `${turns} turns of the event loop while 2,000 entries were checked`);
  });

  it('still names the first invalid entry after the first group', async () => {
    const raw = entries(1200);
    raw[1100] = { ...raw[1100]!, iban: 'DE00000000000000000000' };
    await assert.rejects(
      parseIbanEntries(raw),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 'INVALID_IBAN' &&
        error.message.includes('verifications[1100].iban') &&
        error.message.includes('"1100"'),
    );
  });
});
