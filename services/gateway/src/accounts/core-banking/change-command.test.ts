import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoreBankingAccountChange } from '@vop/contracts';
import { commandForChange } from './change-command.js';

const iban = 'DE89370400440532013000';
const accountId = '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01';
const ids = { newId: () => accountId, now: '2026-04-01T08:00:00.000Z' };
const base = { sourceEventId: 'cbs-1', occurredAt: '2026-04-01T07:59:00.000+02:00', iban };

describe('core-banking change → account command', () => {
  it('given no account for the IBAN, when it is opened, then OpenAccount with a new id, active', () => {
    const change: CoreBankingAccountChange = {
      type: 'AccountOpened',
      ...base,
      name: 'Erika Mustermann',
    };
    assert.deepEqual(commandForChange(change, undefined, ids), {
      type: 'OpenAccount',
      accountId,
      fields: { iban, name: 'Erika Mustermann', alternateNames: [], status: 'active' },
      now: ids.now,
    });
  });

  it('given a live account, when it is opened again, then the account is updated to the opened record', () => {
    const change: CoreBankingAccountChange = {
      type: 'AccountOpened',
      ...base,
      name: 'Erika Musterfrau',
      holderType: 'person',
      alternateNames: ['Hans Mustermann'],
    };
    assert.deepEqual(commandForChange(change, 'live-id', ids), {
      type: 'UpdateAccount',
      accountId: 'live-id',
      changes: {
        name: 'Erika Musterfrau',
        holderType: 'person',
        alternateNames: ['Hans Mustermann'],
        status: 'active',
      },
      now: ids.now,
    });
  });

  it('given a live account, then renamed, holders changed and closed update only their field', () => {
    const renamed: CoreBankingAccountChange = { type: 'AccountRenamed', ...base, name: 'New Name' };
    const holders: CoreBankingAccountChange = {
      type: 'HoldersChanged',
      ...base,
      alternateNames: ['B'],
    };
    const closed: CoreBankingAccountChange = { type: 'AccountClosed', ...base };
    assert.deepEqual(commandForChange(renamed, 'a', ids), {
      type: 'UpdateAccount',
      accountId: 'a',
      changes: { name: 'New Name' },
      now: ids.now,
    });
    assert.deepEqual(commandForChange(holders, 'a', ids), {
      type: 'UpdateAccount',
      accountId: 'a',
      changes: { alternateNames: ['B'] },
      now: ids.now,
    });
    assert.deepEqual(commandForChange(closed, 'a', ids), {
      type: 'UpdateAccount',
      accountId: 'a',
      changes: { status: 'closed' },
      now: ids.now,
    });
  });

  it('given no account for the IBAN, then a rename, holder change or closure has no command', () => {
    for (const change of [
      { type: 'AccountRenamed', ...base, name: 'X' },
      { type: 'HoldersChanged', ...base, alternateNames: [] },
      { type: 'AccountClosed', ...base },
    ] as CoreBankingAccountChange[]) {
      assert.equal(commandForChange(change, undefined, ids), undefined, change.type);
    }
  });
});
