import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccountEvent, AccountSnapshot } from '@vop/contracts';
import { createPgliteClient, type SqlClient, type SqlExecutor } from '@vop/event-store';
import { germanIban, projectionSpec } from '@vop/testing';
import {
  findAccountsByIbans,
  migrateAccountProjection,
  projectAccountEvent,
  projectAppendedAccounts,
  type MatchingAccount,
} from './account-projection.js';

const SCHEMA = 'matching';
const IBAN = 'DE89370400440532013000';
const accountId = '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01';
const otherId = '5d6c2f7e-1b1a-4c3e-8f0e-2a9b7c4d1e02';

/** An account event as the stream delivers it, with the stream revision it was appended at. */
interface AtRevision {
  event: AccountEvent;
  revision: number;
}

const oneByOne = projectionSpec<AtRevision>({
  migrate: (sql) => migrateAccountProjection(sql, SCHEMA),
  project: async (tx, events) => {
    for (const { event, revision } of events) {
      await projectAccountEvent(tx, SCHEMA, event, revision);
    }
  },
});

/** As a writer applies its write's events at commit (AccountCopyAtCommit): all at once. */
const atOnce = projectionSpec<AtRevision>({
  migrate: (sql) => migrateAccountProjection(sql, SCHEMA),
  project: async (tx, events) => {
    await projectAppendedAccounts(tx, SCHEMA, events);
  },
});

const erika: AccountSnapshot = {
  accountId,
  iban: IBAN,
  name: 'Erika Mustermann',
  holderType: 'person',
  alternateNames: ['E. Mustermann'],
  status: 'active',
};

function opened(revision: number, account: AccountSnapshot = erika): AtRevision {
  const createdAt = '2026-01-01T00:00:00.000Z';
  return { revision, event: { type: 'AccountOpened', data: { ...account, createdAt } } };
}

function updated(revision: number, account: AccountSnapshot, previousIban = IBAN): AtRevision {
  const updatedAt = '2026-01-02T00:00:00.000Z';
  const data = { ...account, previousIban, updatedAt };
  return { revision, event: { type: 'AccountUpdated', data } };
}

function deleted(revision: number, account: AccountSnapshot = erika): AtRevision {
  const { accountId: id, iban } = account;
  const deletedAt = '2026-01-03T00:00:00.000Z';
  return { revision, event: { type: 'AccountDeleted', data: { accountId: id, iban, deletedAt } } };
}

function matching(account: AccountSnapshot): MatchingAccount {
  return {
    accountId: account.accountId,
    iban: account.iban,
    name: account.name,
    holderType: account.holderType,
    alternateNames: account.alternateNames,
    identifiers: account.identifiers,
    status: account.status,
  };
}

const byIbans =
  (...ibans: string[]) =>
  (sql: SqlExecutor) =>
    findAccountsByIbans(sql, SCHEMA, ibans);

const allRows = async (sql: SqlExecutor) =>
  (await sql.query(`SELECT account_id, name, status, revision FROM ${SCHEMA}.accounts`)).rows;

for (const [how, spec] of [
  ['each event from the topic', oneByOne],
  ["a write's events at once", atOnce],
] as const)
  describe(`matching account projection: ${how}`, () => {
    it('given no account, when one opens, then it is found active by its IBAN', async () => {
      await spec
        .given([])
        .when([opened(1)])
        .then(byIbans(IBAN, germanIban(1)), new Map([[IBAN, matching(erika)]]));
    });

    describe('an organisation', () => {
      const company: AccountSnapshot = {
        accountId,
        iban: IBAN,
        name: 'Muster GmbH',
        holderType: 'organisation',
        alternateNames: ['Muster'],
        identifiers: { lei: '529900T8BM49AURSDO55', others: [{ scheme: 'HRB', id: '12345' }] },
        status: 'active',
      };

      it('given no account, when it opens, then its identifiers are found with it', async () => {
        await spec
          .given([])
          .when([opened(1, company)])
          .then(byIbans(IBAN), new Map([[IBAN, matching(company)]]));
      });

      it('given it is open, when names and identifiers change, then new ones count', async () => {
        const renamed: AccountSnapshot = {
          ...company,
          name: 'Muster AG',
          alternateNames: [],
          identifiers: { lei: '5299000J2N45DDNE4Y28' },
        };
        await spec
          .given([opened(1, company)])
          .when([updated(2, renamed)])
          .then(byIbans(IBAN), new Map([[IBAN, matching(renamed)]]));
      });
    });

    it('given revision 3, when revision 2 arrives late, then it is ignored', async () => {
      const renamed = { ...erika, name: 'Erika Musterfrau' };
      await spec
        .given([opened(1), updated(3, renamed)])
        .when([updated(2, { ...erika, name: 'Erika Zwischenname', status: 'blocked' })])
        .then(byIbans(IBAN), new Map([[IBAN, matching(renamed)]]));
    });

    it('given a deleted account, when an older event arrives, then it stays deleted', async () => {
      await spec
        .given([opened(1), deleted(3)])
        .when([updated(2, { ...erika, name: 'Erika Musterfrau' })])
        .then(byIbans(IBAN), new Map());
    });

    it('given only its deletion, when the opening arrives, then a tombstone remains', async () => {
      await spec
        .given([deleted(2)])
        .when([opened(1)])
        .then(allRows, [{ account_id: accountId, name: '', status: 'deleted', revision: 2 }]);
    });

    it('given a closed account, when another opens on its IBAN, then the active wins', async () => {
      const closed = { ...erika, status: 'closed' as const };
      const successor: AccountSnapshot = {
        ...erika,
        accountId: otherId,
        name: 'Max Mustermann',
        alternateNames: [],
      };
      // The closed row's higher revision would win if the active one were not preferred.
      await spec
        .given([opened(1, closed), updated(5, closed)])
        .when([opened(1, successor)])
        .then(byIbans(IBAN), new Map([[IBAN, matching(successor)]]));
    });

    it('given an open account, when its IBAN changes, then only the new IBAN finds it', async () => {
      const moved = { ...erika, iban: germanIban(7) };
      await spec
        .given([opened(1)])
        .when([updated(2, moved, IBAN)])
        .then(byIbans(IBAN, moved.iban), new Map([[moved.iban, matching(moved)]]));
    });
  });

describe("matching account projection: what a write's events changed", () => {
  it('given revision 2, when revisions 1–2 arrive again and another account opens, then only the other is reported changed', async () => {
    const sql = await createPgliteClient({});
    try {
      await migrateAccountProjection(sql, SCHEMA);
      const project = (events: AtRevision[]) =>
        sql.transaction((tx) => projectAppendedAccounts(tx, SCHEMA, events));
      const moved = { ...erika, name: 'Erika Musterfrau' };
      assert.deepEqual(await project([opened(1), updated(2, moved)]), new Set([accountId]));
      const other = { ...erika, accountId: otherId, iban: germanIban(8) };
      assert.deepEqual(
        await project([opened(1), updated(2, moved), opened(1, other)]),
        new Set([otherId]),
      );
      assert.deepEqual(await project([deleted(3, moved)]), new Set([accountId]));
    } finally {
      await sql.close();
    }
  });
});

describe("matching account projection: a write's events at commit (accounts it opened have no row yet)", () => {
  const withCopy = async (run: (sql: SqlClient) => Promise<void>) => {
    const sql = await createPgliteClient({});
    try {
      await migrateAccountProjection(sql, SCHEMA);
      await run(sql);
    } finally {
      await sql.close();
    }
  };
  const atCommit = (sql: SqlClient, events: AtRevision[]) =>
    sql.transaction((tx) => projectAppendedAccounts(tx, SCHEMA, events, { atCommit: true }));

  it('given an open account, when a write opens another, changes it at once and changes the first, then both rows are the newest', async () => {
    await withCopy(async (sql) => {
      await atCommit(sql, [opened(1)]);
      const other: AccountSnapshot = { ...erika, accountId: otherId, iban: germanIban(8) };
      const otherRenamed = { ...other, name: 'Max Mustermann' };
      const renamed = { ...erika, name: 'Erika Musterfrau' };
      const changed = await atCommit(sql, [
        opened(1, other),
        updated(2, otherRenamed, other.iban),
        updated(2, renamed),
      ]);
      assert.deepEqual(changed, new Set([otherId, accountId]));
      assert.deepEqual(
        await byIbans(IBAN, other.iban)(sql),
        new Map([
          [IBAN, matching(renamed)],
          [other.iban, matching(otherRenamed)],
        ]),
      );
    });
  });

  it('given a row for an account, when a write says it opened that account, then the write fails and the row stays', async () => {
    await withCopy(async (sql) => {
      await atCommit(sql, [opened(1)]);
      await assert.rejects(
        atCommit(sql, [opened(1, { ...erika, name: 'Someone Else' })]),
        (error: { code?: string }) => error.code === '23505',
      );
      assert.deepEqual(await byIbans(IBAN)(sql), new Map([[IBAN, matching(erika)]]));
    });
  });
});
