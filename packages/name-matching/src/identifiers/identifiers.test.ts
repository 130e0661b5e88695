import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchPartyIdentification } from './party-identification.js';
import { validateBic, validateIban, validateLei } from './validation.js';

describe('IBAN (ISO 13616)', () => {
  it('given valid IBANs, in electronic or paper form, then valid and normalised', () => {
    assert.deepEqual(validateIban('DE89370400440532013000'), {
      valid: true,
      normalised: 'DE89370400440532013000',
    });
    assert.deepEqual(validateIban('fr14 2004 1010 0505 0001 3m02 606'), {
      valid: true,
      normalised: 'FR1420041010050500013M02606',
    });
    assert.equal(validateIban('GB82WEST12345698765432').valid, true);
  });
  it('given a wrong check digit, then CHECKSUM', () => {
    assert.deepEqual(validateIban('DE88370400440532013000'), { valid: false, problem: 'CHECKSUM' });
  });
  it('given the wrong length for the country, then LENGTH', () => {
    assert.deepEqual(validateIban('DE8937040044053201300'), { valid: false, problem: 'LENGTH' });
  });
  it('given an unknown country or no IBAN at all, then COUNTRY, FORMAT or MISSING', () => {
    assert.deepEqual(validateIban('XX89370400440532013000'), { valid: false, problem: 'COUNTRY' });
    assert.deepEqual(validateIban('not an iban'), { valid: false, problem: 'FORMAT' });
    assert.deepEqual(validateIban(''), { valid: false, problem: 'MISSING' });
  });
});

describe('BIC (ISO 9362)', () => {
  it('given 8- and 11-character BICs, then valid', () => {
    assert.deepEqual(validateBic('DEUTDEFF'), { valid: true, normalised: 'DEUTDEFF' });
    assert.equal(validateBic('deutdeff500').valid, true);
  });
  it('given a malformed BIC or an unknown country, then invalid', () => {
    assert.equal(validateBic('DEUTDEF').valid, false);
    assert.equal(validateBic('DEU1DEFF').valid, false);
    assert.deepEqual(validateBic('DEUTXXFF'), { valid: false, problem: 'COUNTRY' });
  });
});

describe('LEI (ISO 17442, ISO 7064 MOD 97-10)', () => {
  it('given published LEIs, then valid', () => {
    assert.equal(validateLei('7LTWFZYICNSX8D621K86').valid, true); // Deutsche Bank AG
    assert.equal(validateLei('HWUPKR0MPOU8FGXBT394').valid, true); // Apple Inc.
    assert.equal(validateLei('529900T8BM49AURSDO55').valid, true); // GLEIF
  });
  it('given a changed character or wrong shape, then CHECKSUM, LENGTH or FORMAT', () => {
    assert.deepEqual(validateLei('7LTWFZYICNSX8D621K87'), { valid: false, problem: 'CHECKSUM' });
    assert.deepEqual(validateLei('7LTWFZYICNSX8D621K8'), { valid: false, problem: 'LENGTH' });
    assert.deepEqual(validateLei('7LTWFZYICNSX8D621KAB'), { valid: false, problem: 'FORMAT' });
  });
});

describe('party identification against the account', () => {
  const account = { lei: '7LTWFZYICNSX8D621K86', others: [{ scheme: 'DE-HRB', id: 'HRB 30000' }] };
  it("given the account's LEI, then MTCH", () => {
    assert.equal(matchPartyIdentification({ lei: '7ltwfzyicnsx8d621k86' }, account), 'MTCH');
  });
  it('given another LEI, then NMTC', () => {
    assert.equal(matchPartyIdentification({ lei: 'HWUPKR0MPOU8FGXBT394' }, account), 'NMTC');
  });
  it("given another scheme's identifier written differently, then MTCH; a different one, NMTC", () => {
    assert.equal(
      matchPartyIdentification({ others: [{ scheme: 'de-hrb', id: 'HRB30000' }] }, account),
      'MTCH',
    );
    assert.equal(
      matchPartyIdentification({ others: [{ scheme: 'DE-HRB', id: 'HRB 30001' }] }, account),
      'NMTC',
    );
  });
  it('given identifiers of a kind the account does not hold, then NOAP', () => {
    assert.equal(matchPartyIdentification({ lei: 'HWUPKR0MPOU8FGXBT394' }, { others: [] }), 'NOAP');
    assert.equal(
      matchPartyIdentification({ others: [{ scheme: 'VAT', id: 'DE123' }] }, account),
      'NOAP',
    );
    assert.equal(matchPartyIdentification({}, account), 'NOAP');
  });
  it('given one agreeing and one differing identifier, then NMTC', () => {
    assert.equal(
      matchPartyIdentification(
        { lei: account.lei, others: [{ scheme: 'DE-HRB', id: 'HRB 1' }] },
        account,
      ),
      'NMTC',
    );
  });
});
