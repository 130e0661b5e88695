import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccountEvent, AccountSnapshot } from '@vop/contracts';
import { createPgliteClient } from '@vop/event-store';
import { britishIban, germanIban, projectionSpec } from '@vop/testing';
import {
  findDomesticAccounts,
  migrateDomesticAccounts,
  projectDomesticAccount,
  projectDomesticAccounts,
} from './read-model.js';

const SCHEMA = 'batch';
const oneByOne = projectionSpec<AccountEvent>({
  migrate: (sql) => migrateDomesticAccounts(sql, SCHEMA),
  project: async (tx, events) => {
    for (const event of events) await projectDomesticAccount(tx, SCHEMA, event);
  },
});

/** As a writer sharing the database applies its write's events at commit: all at once. */
const atOnce = projectionSpec<AccountEvent>({
  migrate: (sql) => migrateDomesticAccounts(sql, SCHEMA),
  project: async (tx, events) => {
    await projectDomesticAccounts(tx, SCHEMA, events);
  },
});

const accountId = '6f1c2a57-0d5e-4b8a-9a51-3f4f8a1d2e01';
const pair = { sortCode: '089999', accountNumber: '66374958' };
const snapshot: AccountSnapshot = {
  accountId,
  iban: germanIban(1),
  name: 'Erika Mustermann',
  alternateNames: [],
  status: 'active',
  domesticAccount: pair,
};
const opened: AccountEvent = {
  type: 'AccountOpened',
  data: { ...snapshot, createdAt: '2026-03-01T09:00:00.000Z' },
};
const updated = (changes: Partial<AccountSnapshot>, updatedAt: string): AccountEvent => ({
  type: 'AccountUpdated',
  data: { ...snapshot, ...changes, previousIban: snapshot.iban, updatedAt },
});
const deleted: AccountEvent = {
  type: 'AccountDeleted',
  data: { accountId, iban: germanIban(1), deletedAt: '2026-03-01T11:00:00.000Z' },
};
const lookUp = (sql: Parameters<typeof findDomesticAccounts>[0]) =>
  findDomesticAccounts(sql, SCHEMA, [pair]);
const rowsKept = async (sql: Parameters<typeof findDomesticAccounts>[0]) =>
  (
    await sql.query<{ rows: number }>(
      `SELECT count(*)::int AS rows FROM ${SCHEMA}.domestic_accounts`,
    )
  ).rows[0]?.rows;

for (const [how, spec] of [
  ['each event from the topic', oneByOne],
  ["a write's events at once", atOnce],
] as const)
  describe(`domestic accounts read model: ${how}`, () => {
    it('given nothing, when an account with a sort code opens, then its pair finds its IBAN and status', async () => {
      await spec
        .given([])
        .when([opened])
        .then(lookUp, [{ ...pair, iban: germanIban(1), status: 'active' }]);
    });

    it('given an open account, when it is closed under a new IBAN, then the pair finds the new IBAN, closed', async () => {
      await spec
        .given([opened])
        .when([updated({ iban: germanIban(2), status: 'closed' }, '2026-03-01T10:00:00.000Z')])
        .then(lookUp, [{ ...pair, iban: germanIban(2), status: 'closed' }]);
    });

    it('given nothing, when an update arrives before the older opening in one delivery, then the update counts', async () => {
      const later = updated({ iban: germanIban(2), status: 'blocked' }, '2026-03-01T10:00:00.000Z');
      await spec
        .given([])
        .when([later, opened])
        .then(lookUp, [{ ...pair, iban: germanIban(2), status: 'blocked' }]);
    });

    it('given an account updated later, when its opening arrives again (or late), then nothing changes', async () => {
      const later = updated({ iban: germanIban(2) }, '2026-03-01T10:00:00.000Z');
      await spec
        .given([later])
        .when([opened])
        .then(lookUp, [{ ...pair, iban: germanIban(2), status: 'active' }]);
    });

    it("given nothing, when a GB account opens without a domestic account, then its IBAN's own pair finds it", async () => {
      const iban = britishIban(pair.sortCode, pair.accountNumber);
      const { domesticAccount: _written, ...withoutDomestic } = snapshot;
      await spec
        .given([])
        .when([
          {
            type: 'AccountOpened',
            data: { ...withoutDomestic, iban, createdAt: '2026-03-01T09:00:00.000Z' },
          },
        ])
        .then(lookUp, [{ ...pair, iban, status: 'active' }]);
    });

    it("given a GB account with a domestic account of its own, when it opens, then its IBAN's pair finds nothing", async () => {
      const iban = britishIban(pair.sortCode, '31926819');
      await spec
        .given([])
        .when([
          {
            type: 'AccountOpened',
            data: { ...snapshot, iban, createdAt: '2026-03-01T09:00:00.000Z' },
          },
        ])
        .then(
          (sql) =>
            findDomesticAccounts(sql, SCHEMA, [
              { sortCode: pair.sortCode, accountNumber: '31926819' },
            ]),
          [],
        );
    });

    it('given an open account, when its domestic account is removed, then the pair finds nothing', async () => {
      const { domesticAccount: _removed, ...withoutPair } = snapshot;
      await spec
        .given([opened])
        .when([
          {
            type: 'AccountUpdated',
            data: {
              ...withoutPair,
              previousIban: snapshot.iban,
              updatedAt: '2026-03-01T10:00:00.000Z',
            },
          },
        ])
        .then(lookUp, []);
    });

    it('given an open account, when it is deleted, then the pair finds nothing and no IBAN is kept', async () => {
      await spec
        .given([opened])
        .when([deleted])
        .then(
          async (sql) => ({
            found: await lookUp(sql),
            kept: (await sql.query(`SELECT iban FROM ${SCHEMA}.domestic_accounts`)).rows,
          }),
          { found: [], kept: [{ iban: null }] },
        );
    });

    it('given nothing, when accounts open and change without a pair under one IBAN, then no row is made', async () => {
      const { domesticAccount: _none, ...pairless } = snapshot;
      await spec
        .given([
          { type: 'AccountOpened', data: { ...pairless, createdAt: '2026-03-01T09:00:00.000Z' } },
        ])
        .when([
          {
            type: 'AccountUpdated',
            data: {
              ...pairless,
              status: 'blocked',
              previousIban: pairless.iban,
              updatedAt: '2026-03-01T10:00:00.000Z',
            },
          },
        ])
        .then(rowsKept, 0);
    });

    it('given an account opened without a pair, when it is given one, then its pair finds it', async () => {
      const { domesticAccount: _none, ...pairless } = snapshot;
      await spec
        .given([
          { type: 'AccountOpened', data: { ...pairless, createdAt: '2026-03-01T09:00:00.000Z' } },
        ])
        .when([updated({}, '2026-03-01T10:00:00.000Z')])
        .then(lookUp, [{ ...pair, iban: germanIban(1), status: 'active' }]);
    });

    it('given a change of IBAN that took the pair away, when the older opening with the pair comes late, then the pair finds nothing', async () => {
      const { domesticAccount: _none, ...pairless } = snapshot;
      await spec
        .given([
          {
            type: 'AccountUpdated',
            data: {
              ...pairless,
              iban: germanIban(2),
              previousIban: snapshot.iban,
              updatedAt: '2026-03-01T10:00:00.000Z',
            },
          },
        ])
        .when([opened])
        .then(lookUp, []);
    });

    it('given a deleted account, when an older update arrives late, then it stays deleted', async () => {
      await spec
        .given([opened, deleted])
        .when([updated({ status: 'active' }, '2026-03-01T10:00:00.000Z')])
        .then(lookUp, []);
    });
  });

describe('domestic accounts read model: GB rows projected before their IBAN gave them a pair', () => {
  it('reports the accounts whose rows changed: an event delivered again changes none', async () => {
    const sql = await createPgliteClient({});
    try {
      await migrateDomesticAccounts(sql, SCHEMA);
      const project = (events: AccountEvent[]) =>
        sql.transaction((tx) => projectDomesticAccounts(tx, SCHEMA, events));
      assert.deepEqual(await project([opened]), new Set([accountId]));
      assert.deepEqual(await project([opened]), new Set());
      assert.deepEqual(await project([deleted]), new Set([accountId]));
      assert.deepEqual(await project([deleted, opened]), new Set());
    } finally {
      await sql.close();
    }
  });

  it("given a GB row without a pair, when the read model migrates, then its IBAN's own pair finds it", async () => {
    const sql = await createPgliteClient({});
    try {
      await migrateDomesticAccounts(sql, SCHEMA);
      const iban = britishIban(pair.sortCode, pair.accountNumber);
      await sql.query(
        `INSERT INTO ${SCHEMA}.domestic_accounts (account_id, iban, status, as_of) VALUES ($1, $2, 'active', now())`,
        [accountId, iban],
      );
      await migrateDomesticAccounts(sql, SCHEMA);
      assert.deepEqual(await lookUp(sql), [{ ...pair, iban, status: 'active' }]);
    } finally {
      await sql.close();
    }
  });
});
