import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccountEvent, AccountSnapshot } from '@vop/contracts';
import type { AppendedAccountEvent } from '@vop/verifications';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { germanIban } from '@vop/testing';
import { analyticsAccountsAtCommit } from './at-commit.js';
import { findAccountStatus, migrateAccountsReadModel } from './read-model.js';

const SCHEMA = 'analytics';
const first: AccountSnapshot = {
  accountId: '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01',
  iban: germanIban(1),
  name: 'Erika Mustermann',
  holderType: 'person',
  alternateNames: [],
  status: 'active',
};
const second: AccountSnapshot = {
  ...first,
  accountId: '5d6c2f7e-1b1a-4c3e-8f0e-2a9b7c4d1e02',
  iban: germanIban(2),
};

const opened = (revision: number, account: AccountSnapshot): AppendedAccountEvent => ({
  revision,
  event: {
    type: 'AccountOpened',
    data: { ...account, createdAt: '2026-01-01T00:00:00.000Z' },
  } satisfies AccountEvent,
});
const changed = (
  revision: number,
  account: AccountSnapshot,
  updatedAt: string,
): AppendedAccountEvent => ({
  revision,
  event: {
    type: 'AccountUpdated',
    data: { ...account, previousIban: account.iban, updatedAt },
  } satisfies AccountEvent,
});

describe("analytics' accounts written at commit (accounts the write opened have no row yet)", () => {
  const withReadModel = async (run: (sql: SqlClient) => Promise<void>) => {
    const sql = await createPgliteClient({});
    try {
      await migrateAccountsReadModel(sql, SCHEMA);
      await run(sql);
    } finally {
      await sql.close();
    }
  };
  const write = (sql: SqlClient, appended: AppendedAccountEvent[]) =>
    sql.transaction((tx) => analyticsAccountsAtCommit(SCHEMA).apply(tx, appended));

  it('given an open account, when a write opens another, changes it at once and closes the first, then each has its newest status', async () => {
    await withReadModel(async (sql) => {
      await write(sql, [opened(1, first)]);
      await write(sql, [
        opened(1, second),
        changed(2, { ...second, status: 'blocked' }, '2026-01-02T00:00:00.000Z'),
        changed(2, { ...first, status: 'closed' }, '2026-01-03T00:00:00.000Z'),
      ]);
      assert.deepEqual(await findAccountStatus(sql, SCHEMA, second.accountId), {
        accountId: second.accountId,
        status: 'blocked',
        updatedAt: '2026-01-02T00:00:00.000Z',
      });
      assert.deepEqual(await findAccountStatus(sql, SCHEMA, first.accountId), {
        accountId: first.accountId,
        status: 'closed',
        updatedAt: '2026-01-03T00:00:00.000Z',
      });
    });
  });

  it('given a row for an account, when a write says it opened that account, then the write fails and the row stays', async () => {
    await withReadModel(async (sql) => {
      await write(sql, [opened(1, first)]);
      await assert.rejects(
        write(sql, [opened(1, { ...first, status: 'closed' })]),
        (error: { code?: string }) => error.code === '23505',
      );
      assert.equal((await findAccountStatus(sql, SCHEMA, first.accountId))?.status, 'active');
    });
  });
});
