import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REFERENCE_DATA_VERSIONS } from '@vop/conformance';
import { Iban, SCHEME_REFERENCE_DATA_VERSIONS } from '@vop/contracts';
import { generatedCase, sandboxIban } from './sandbox-data.js';

describe('sandbox data', () => {
  it('the data-load contract names exactly the versions the repository ships', () => {
    assert.deepEqual([...SCHEME_REFERENCE_DATA_VERSIONS], [...REFERENCE_DATA_VERSIONS]);
  });

  it('generates per scenario the name asked and the answer the scheme path gives', () => {
    assert.deepEqual(generatedCase(0, 'exact_match'), {
      name: 'Anna Mustermann',
      asked: 'Anna Mustermann',
      partyNameMatch: 'MTCH',
      matchedName: 'present',
    });
    assert.deepEqual(generatedCase(9, 'close_match'), {
      name: 'Lukas Zimmermann',
      asked: 'Lukas Zimermann',
      partyNameMatch: 'CMTC',
      matchedName: 'present',
    });
    const unrelated = generatedCase(2, 'no_match');
    assert.equal(unrelated.partyNameMatch, 'NMTC');
    assert.notEqual(unrelated.asked.split(' ')[1], unrelated.name.split(' ')[1]);
  });

  it('makes valid German IBANs at the sandbox bank code', () => {
    for (let index = 0; index < 50; index++) {
      const iban = sandboxIban();
      assert.equal(Iban.parse(iban), iban);
      assert.match(iban, /^DE\d{2}50010517\d{10}$/);
    }
  });
});
