import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bic, Iban, Psd2AuthorisationNumber, SchemeDirectorySnapshot } from '@vop/contracts';
import { SCHEME_BANKS, schemeIban } from './banks.js';
import { shellWord } from './banner.js';
import { bankCodeTable, schemeDirectory } from './reference-data.js';

const placed = SCHEME_BANKS.map((bank, index) => ({
  bank,
  url: `https://127.0.0.1:${9441 + index}`,
}));

describe('the banks of the scheme in a box', () => {
  it('have BICs, authorisation numbers and IBANs the contracts accept', () => {
    for (const bank of SCHEME_BANKS) {
      assert.equal(Bic.safeParse(bank.bic).success, true, bank.bic);
      assert.equal(Psd2AuthorisationNumber.safeParse(bank.authorisationNumber).success, true);
      for (const account of bank.accounts) {
        const iban = schemeIban(bank.bankCode, account.accountNumber);
        assert.equal(Iban.safeParse(iban).success, true, iban);
        assert.equal(iban.slice(4, 12), bank.bankCode);
      }
    }
  });

  it('are told apart by BIC, bank code and authorisation number', () => {
    for (const key of ['bic', 'bankCode', 'authorisationNumber'] as const)
      assert.equal(new Set(SCHEME_BANKS.map((bank) => bank[key])).size, SCHEME_BANKS.length, key);
  });
});

describe('the reference data each bank loads', () => {
  it('is a directory the contract accepts: every bank, both roles, its EPC API as endpoint', () => {
    const snapshot = SchemeDirectorySnapshot.parse(
      schemeDirectory(placed, new Date('2026-11-29T09:00:00Z')),
    );
    assert.deepEqual(
      snapshot.participants.map((participant) => ({
        bics: participant.bics,
        environment: participant.environment,
        roles: participant.roles,
        endpoints: participant.endpoints,
      })),
      placed.map(({ bank, url }) => ({
        bics: [bank.bic],
        environment: 'T',
        roles: ['requesting', 'responding'],
        endpoints: [{ uri: `${url}/vop/v1`, priority: 1, apiVersion: '1.1.1' }],
      })),
    );
  });

  it('is a bank-code table with a header and one row per bank', () => {
    assert.deepEqual(bankCodeTable(placed).split('\n'), [
      'country,bank_code,bic',
      'DE,10010010,SIABDEFFXXX',
      'DE,20020020,SIBBDEFFXXX',
      'DE,30030030,SICBDEFFXXX',
    ]);
  });
});

describe('shellWord', () => {
  it('leaves a plain word and quotes one with spaces or quotes', () => {
    assert.equal(shellWord('/tmp/pki/ca.pem'), '/tmp/pki/ca.pem');
    assert.equal(shellWord('Content-Type: application/json'), "'Content-Type: application/json'");
    assert.equal(shellWord("it's"), `'it'\\''s'`);
  });
});
