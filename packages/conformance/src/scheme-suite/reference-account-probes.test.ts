import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadReferenceData } from '../reference-data.js';
import { referenceAccountProbes } from './reference-account-probes.js';

describe('referenceAccountProbes: what a run asks before its first case, right after a load', () => {
  it('asks every open account of the data set by its holder’s name, and not the closed one', async () => {
    const dataSet = await loadReferenceData('1.0.0');
    const probes = referenceAccountProbes(dataSet);
    const open = dataSet.accounts.filter((account) => account.status === undefined);
    const closed = dataSet.accounts.filter((account) => account.status === 'closed');
    assert.ok(closed.length > 0, 'the data set holds a closed account');
    const asked = probes.map((probe) => {
      const body = probe.request.body as { party: unknown; partyAccount: unknown };
      return [body.party, body.partyAccount];
    });
    assert.deepEqual(
      asked,
      open.map((account) => [{ name: account.name }, { iban: account.iban }]),
    );
    for (const probe of probes)
      assert.deepEqual(probe.expect, { status: 200, partyNameMatch: 'MTCH' });
    assert.equal(new Set(probes.map((probe) => probe.id)).size, probes.length);
  });
});
