import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOAP_REASON, type AccountNumberEntry } from '@vop/contracts';
import { germanIban } from '@vop/testing';
import type { DomesticAccount } from '../domestic-accounts/read-model.js';
import { judgeAccountNumberEntries } from './account-number-judge.js';

const entry = (accountNumber: string, accountName = 'Erika Mustermann'): AccountNumberEntry => ({
  accountNumber,
  sortCode: '089999',
  accountName,
});
const account = (accountNumber: string, status: DomesticAccount['status']): DomesticAccount => ({
  sortCode: '089999',
  accountNumber,
  iban: germanIban(Number(accountNumber.slice(-2))),
  status,
});

describe('form 1 entries judged as family D', () => {
  it('given active, blocked, closed and unknown accounts, then open ones are looked up under their IBAN and the rest answer NOAP at once', () => {
    const accounts = [
      account('66374958', 'active'),
      account('11111111', 'blocked'),
      account('22222222', 'closed'),
    ];
    const entries = ['66374958', '11111111', '22222222', '33333333'].map((number, index) => ({
      entryId: String(index + 1),
      entry: entry(number, `Holder ${index + 1}`),
    }));

    assert.deepEqual(judgeAccountNumberEntries(entries, accounts), {
      lookups: [
        { entryId: '1', iban: germanIban(58), name: 'Holder 1' },
        { entryId: '2', iban: germanIban(11), name: 'Holder 2' },
      ],
      judgements: [
        { entryId: '3', outcome: 'NOAP', score: 0, reasons: ['ACCOUNT_CLOSED', NOAP_REASON] },
        { entryId: '4', outcome: 'NOAP', score: 0, reasons: ['ACCOUNT_NOT_FOUND', NOAP_REASON] },
      ],
    });
  });

  it('given an account under another sort code, then an entry with the same number is unknown', () => {
    const { judgements, lookups } = judgeAccountNumberEntries(
      [{ entryId: '1', entry: { ...entry('66374958'), sortCode: '112233' } }],
      [account('66374958', 'active')],
    );
    assert.deepEqual(lookups, []);
    assert.deepEqual(judgements[0]?.reasons, ['ACCOUNT_NOT_FOUND', NOAP_REASON]);
  });
});
