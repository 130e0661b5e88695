import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRateBudget } from './rate-budget.js';

describe('the rate budget per responder', () => {
  it('given a budget of 3 a minute, when a fourth call comes, then it is refused with the wait', async () => {
    const budget = createRateBudget(3, 60);
    for (let call = 0; call < 3; call += 1)
      assert.equal(await budget.spend('PSDDE-BAFIN-000001'), undefined);

    const wait = await budget.spend('PSDDE-BAFIN-000001');

    assert.ok(wait !== undefined && wait > 0 && wait <= 60_000, String(wait));
  });

  it('given one responder spent its budget, then another responder still has its own', async () => {
    const budget = createRateBudget(1, 60);
    await budget.spend('PSDDE-BAFIN-000001');

    assert.notEqual(await budget.spend('PSDDE-BAFIN-000001'), undefined);
    assert.equal(await budget.spend('PSDFR-ACPR-000002'), undefined);
  });
});
