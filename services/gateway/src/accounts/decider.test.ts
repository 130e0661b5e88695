import { describe, it } from 'node:test';
import { deciderSpec } from '@vop/testing';
import type { AccountEvent } from '@vop/contracts';
import {
  type AccountCommand,
  AccountAlreadyExistsError,
  AccountNotFoundError,
  type AccountState,
  decideAccount,
  evolveAccount,
  initialAccountState,
} from './decider.js';

const spec = deciderSpec<AccountCommand, AccountEvent, AccountState>({
  decide: decideAccount,
  evolve: evolveAccount,
  initialState: initialAccountState,
});
const accountId = '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01';
const opened: AccountEvent = {
  type: 'AccountOpened',
  data: {
    accountId,
    iban: 'DE89370400440532013000',
    name: 'Erika Mustermann',
    alternateNames: [],
    status: 'active',
    createdAt: '2026-01-01T00:00:00.000Z',
  },
};
const deleted: AccountEvent = {
  type: 'AccountDeleted',
  data: { accountId, iban: 'DE89370400440532013000', deletedAt: '2026-01-03T00:00:00.000Z' },
};

describe('account decider', () => {
  it('given no account, when it is opened, then AccountOpened carries the record, active by default', () => {
    spec
      .given([])
      .when({
        type: 'OpenAccount',
        accountId,
        fields: { iban: 'DE89370400440532013000', name: 'Erika Mustermann' },
        now: '2026-01-01T00:00:00.000Z',
      })
      .then([opened]);
  });

  it('given an open account, when it is opened again, then it is refused', () => {
    spec
      .given([opened])
      .when({
        type: 'OpenAccount',
        accountId,
        fields: { iban: 'DE89370400440532013000', name: 'X' },
        now: 'n',
      })
      .thenThrows(AccountAlreadyExistsError);
  });

  it('given an open account, when its IBAN changes, then AccountUpdated keeps the other fields and names the previous IBAN', () => {
    spec
      .given([opened])
      .when({
        type: 'UpdateAccount',
        accountId,
        changes: { iban: 'FR1420041010050500013M02606' },
        now: '2026-01-02T00:00:00.000Z',
      })
      .then([
        {
          type: 'AccountUpdated',
          data: {
            accountId,
            iban: 'FR1420041010050500013M02606',
            name: 'Erika Mustermann',
            alternateNames: [],
            status: 'active',
            previousIban: 'DE89370400440532013000',
            updatedAt: '2026-01-02T00:00:00.000Z',
          },
        },
      ]);
  });

  it('given an open account, when it is deleted, then AccountDeleted names its IBAN', () => {
    spec
      .given([opened])
      .when({ type: 'DeleteAccount', accountId, now: '2026-01-03T00:00:00.000Z' })
      .then([deleted]);
  });

  it('given a deleted account, when it is updated or deleted, then it is not found', () => {
    spec
      .given([opened, deleted])
      .when({ type: 'UpdateAccount', accountId, changes: { name: 'Y' }, now: 'n' })
      .thenThrows(AccountNotFoundError);
    spec
      .given([opened, deleted])
      .when({ type: 'DeleteAccount', accountId, now: 'n' })
      .thenThrows(AccountNotFoundError);
  });

  it('given no account, when it is updated, then it is not found', () => {
    spec
      .given([])
      .when({ type: 'UpdateAccount', accountId, changes: { name: 'Y' }, now: 'n' })
      .thenThrows(AccountNotFoundError);
  });
});
