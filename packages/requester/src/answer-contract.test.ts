import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAnswer } from './answer-contract.js';

const base = {
  iban: 'DE89370400440532013000',
  partyAgentBic: 'COBADEFFXXX',
  requestingAgentBic: 'VOPBDEFFXXX',
};
const byName = { ...base, name: 'Erika Mustermann' };
const byId = { ...base, identification: { lei: '529900T8BM49AURSDO55' } };
const byBoth = { ...byName, identification: byId.identification };

describe('a responder answer held to the EPC v1.1.1 rules', () => {
  it('given a name check, then a MTCH is valid', () => {
    assert.deepEqual(checkAnswer({ partyNameMatch: 'MTCH' }, byName), {
      valid: true,
      answer: { partyNameMatch: 'MTCH' },
    });
  });

  it('given a name check, then CMTC comes with the matched name', () => {
    const verdict = checkAnswer({ partyNameMatch: 'CMTC', matchedName: 'Erika Musterman' }, byName);
    assert.deepEqual(verdict, {
      valid: true,
      answer: { partyNameMatch: 'CMTC', matchedName: 'Erika Musterman' },
    });
    assert.equal(checkAnswer({ partyNameMatch: 'CMTC' }, byName).valid, false);
  });

  it('given a name check, then a matchedName beside MTCH is dropped, beside NMTC refused', () => {
    assert.deepEqual(checkAnswer({ partyNameMatch: 'MTCH', matchedName: 'Erika' }, byName), {
      valid: true,
      answer: { partyNameMatch: 'MTCH' },
    });
    assert.equal(
      checkAnswer({ partyNameMatch: 'NMTC', matchedName: 'Erika' }, byName).valid,
      false,
    );
  });

  it('given a name check, then an answer without partyNameMatch or with an unknown word is refused', () => {
    assert.equal(checkAnswer({}, byName).valid, false);
    assert.equal(checkAnswer({ partyNameMatch: 'MAYBE' }, byName).valid, false);
    assert.equal(checkAnswer('MTCH', byName).valid, false);
  });

  it('given an identification check, then partyIdMatch is required and partyNameMatch refused', () => {
    assert.equal(checkAnswer({ partyIdMatch: 'MTCH' }, byId).valid, true);
    assert.equal(checkAnswer({ partyNameMatch: 'MTCH', partyIdMatch: 'MTCH' }, byId).valid, false);
    assert.equal(checkAnswer({ partyNameMatch: 'MTCH' }, byBoth).valid, false);
    assert.equal(checkAnswer({ partyNameMatch: 'NMTC', partyIdMatch: 'NOAP' }, byBoth).valid, true);
  });
});
