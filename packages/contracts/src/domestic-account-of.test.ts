import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { domesticAccountOf } from './domestic-account-of.js';

describe('domesticAccountOf', () => {
  it("given a GB IBAN and no domestic account, then the IBAN's sort code and account number", () => {
    assert.deepEqual(domesticAccountOf({ iban: 'GB29NWBK60161331926819' }), {
      sortCode: '601613',
      accountNumber: '31926819',
    });
  });

  it('given a domestic account written for it, then that one, whatever the IBAN says', () => {
    const written = { sortCode: '089999', accountNumber: '66374958' };
    assert.deepEqual(
      domesticAccountOf({ iban: 'GB29NWBK60161331926819', domesticAccount: written }),
      written,
    );
    assert.deepEqual(
      domesticAccountOf({ iban: 'DE89370400440532013000', domesticAccount: written }),
      written,
    );
  });

  it('given an IBAN of another country, then none', () => {
    assert.equal(domesticAccountOf({ iban: 'DE89370400440532013000' }), undefined);
    assert.equal(domesticAccountOf({ iban: 'IE29AIBK93115212345678' }), undefined);
  });
});
