import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccountEvent } from '@vop/contracts';
import { createPgliteClient, type SqlExecutor } from '@vop/event-store';
import { britishIban, germanIban, projectionSpec } from '@vop/testing';
import {
  LIVE_IBAN_CONSTRAINT,
  findExpiredTestAccounts,
  findLiveAccount,
  findLiveDomesticAccount,
  isLiveTestAccount,
  migrateAccountsReadModel,
  projectAccountEvent,
} from './read-model.js';

const SCHEMA = 'gateway';
const IBAN = 'DE89370400440532013000';
const accountId = '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01';
const otherId = '5d6c2f7e-1b1a-4c3e-8f0e-2a9b7c4d1e02';

/** An event from the sandbox endpoint, projected as a test account. */
interface SandboxEvent {
  sandbox: AccountEvent;
}

const spec = projectionSpec<AccountEvent | SandboxEvent>({
  migrate: (sql) => migrateAccountsReadModel(sql, SCHEMA),
  project: async (tx, events) => {
    for (const event of events) {
      if ('sandbox' in event) {
        await projectAccountEvent(tx, SCHEMA, event.sandbox, { testAccount: true });
      } else {
        await projectAccountEvent(tx, SCHEMA, event);
      }
    }
  },
});

const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}T00:00:00.000Z`;

function opened(id: string, iban: string, createdAt: string): AccountEvent {
  return {
    type: 'AccountOpened',
    data: {
      accountId: id,
      iban,
      name: 'Erika Mustermann',
      alternateNames: [],
      status: 'active',
      createdAt,
    },
  };
}

function updated(id: string, iban: string, previousIban: string, updatedAt: string): AccountEvent {
  return {
    type: 'AccountUpdated',
    data: {
      accountId: id,
      iban,
      previousIban,
      name: 'Erika Mustermann',
      alternateNames: [],
      status: 'active',
      updatedAt,
    },
  };
}

function deleted(id: string, iban: string, deletedAt: string): AccountEvent {
  return { type: 'AccountDeleted', data: { accountId: id, iban, deletedAt } };
}

const allRows = async (sql: SqlExecutor) =>
  (
    await sql.query(
      `SELECT id, iban, created_at, updated_at, deleted_at, test_account
         FROM ${SCHEMA}.accounts ORDER BY created_at`,
    )
  ).rows;

describe('gateway accounts read model', () => {
  it('given no account, when one opens, then a live row holds its IBAN and times', async () => {
    await spec
      .given([])
      .when([opened(accountId, IBAN, day(1))])
      .then(allRows, [
        {
          id: accountId,
          iban: IBAN,
          created_at: new Date(day(1)),
          updated_at: new Date(day(1)),
          deleted_at: null,
          test_account: false,
        },
      ]);
  });

  it('given an open account, when its IBAN changes, then IBAN and updated_at change', async () => {
    const newIban = germanIban(1);
    await spec
      .given([opened(accountId, IBAN, day(1))])
      .when([updated(accountId, newIban, IBAN, day(2))])
      .then((sql) => findLiveAccount(sql, SCHEMA, accountId), {
        id: accountId,
        iban: newIban,
        created_at: new Date(day(1)),
        updated_at: new Date(day(2)),
      });
  });

  it('given an open account, when it is deleted, then deleted_at is set, not live', async () => {
    await spec
      .given([opened(accountId, IBAN, day(1))])
      .when([deleted(accountId, IBAN, day(3))])
      .then(
        async (sql) => ({
          deletedAt: (await allRows(sql)).map((row) => row.deleted_at),
          live: await findLiveAccount(sql, SCHEMA, accountId),
        }),
        { deletedAt: [new Date(day(3))], live: undefined },
      );
  });

  it('given a live account, when another opens with its IBAN, then it is refused', async () => {
    await spec
      .given([opened(accountId, IBAN, day(1))])
      .when([opened(otherId, IBAN, day(2))])
      .thenThrows({ code: '23505', constraint: LIVE_IBAN_CONSTRAINT });
  });

  it('given a live account, when another moves to its IBAN, then it is refused', async () => {
    await spec
      .given([opened(accountId, IBAN, day(1)), opened(otherId, germanIban(2), day(1))])
      .when([updated(otherId, IBAN, germanIban(2), day(2))])
      .thenThrows({ code: '23505', constraint: LIVE_IBAN_CONSTRAINT });
  });

  it('given a deleted account, when another opens with its IBAN, then it is live', async () => {
    await spec
      .given([opened(accountId, IBAN, day(1)), deleted(accountId, IBAN, day(2))])
      .when([opened(otherId, IBAN, day(3))])
      .then((sql) => findLiveAccount(sql, SCHEMA, otherId), {
        id: otherId,
        iban: IBAN,
        created_at: new Date(day(3)),
        updated_at: new Date(day(3)),
      });
  });

  describe('test accounts', () => {
    const regular = '11111111-1111-4111-8111-111111111111';
    const removed = '22222222-2222-4222-8222-222222222222';
    const oldest = '33333333-3333-4333-8333-333333333333';
    const older = '44444444-4444-4444-8444-444444444444';
    const young = '55555555-5555-4555-8555-555555555555';
    // The oldest test account is projected last: the order must come from created_at.
    const whenOldestOpens = spec
      .given([
        opened(regular, germanIban(10), day(1)),
        { sandbox: opened(removed, germanIban(11), day(1)) },
        { sandbox: deleted(removed, germanIban(11), day(2)) },
        { sandbox: opened(older, germanIban(12), day(3)) },
        { sandbox: opened(young, germanIban(13), day(20)) },
      ])
      .when([{ sandbox: opened(oldest, germanIban(14), day(2)) }]);
    const cutoff = new Date(day(10));

    it('given test accounts, when one opens, then expired ones come oldest first', async () => {
      await whenOldestOpens.then(
        (sql) => findExpiredTestAccounts(sql, SCHEMA, cutoff, 10),
        [oldest, older],
      );
    });

    it('given test accounts, when one opens, then the limit keeps the oldest', async () => {
      await whenOldestOpens.then(
        (sql) => findExpiredTestAccounts(sql, SCHEMA, cutoff, 1),
        [oldest],
      );
    });

    it('given mixed accounts, when a test one opens, then only live test ones count', async () => {
      await whenOldestOpens.then(
        async (sql) => ({
          regular: await isLiveTestAccount(sql, SCHEMA, regular),
          removed: await isLiveTestAccount(sql, SCHEMA, removed),
          oldest: await isLiveTestAccount(sql, SCHEMA, oldest),
          young: await isLiveTestAccount(sql, SCHEMA, young),
        }),
        { regular: false, removed: false, oldest: true, young: true },
      );
    });
  });
});

describe('accounts read model: GB IBANs written before they were found by their own account number', () => {
  it('given GB rows without a sort code, when the read model migrates, then each is found by its own, unless another holds it', async () => {
    const sql = await createPgliteClient({});
    try {
      await migrateAccountsReadModel(sql, SCHEMA);
      const legacy = async (id: string, iban: string, sortCode: string | null = null) =>
        sql.query(
          `INSERT INTO ${SCHEMA}.accounts (id, iban, created_at, updated_at, sort_code, account_number)
           VALUES ($1, $2, now(), now(), $3, $4)`,
          [id, iban, sortCode, sortCode === null ? null : '66374958'],
        );
      await legacy(accountId, britishIban('601613', '31926819'));
      // Another live account already holds the second one's pair: that one keeps none.
      await legacy(otherId, germanIban(7), '089999');
      await legacy('3a4b5c6d-7e8f-4a0b-8c1d-2e3f4a5b6c03', britishIban('089999', '66374958'));
      await migrateAccountsReadModel(sql, SCHEMA);
      assert.equal(
        (await findLiveDomesticAccount(sql, SCHEMA, '601613', '31926819'))?.iban,
        britishIban('601613', '31926819'),
      );
      assert.equal(
        (await findLiveDomesticAccount(sql, SCHEMA, '089999', '66374958'))?.iban,
        germanIban(7),
      );
    } finally {
      await sql.close();
    }
  });
});
