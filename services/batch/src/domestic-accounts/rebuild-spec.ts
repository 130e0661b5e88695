import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import type { AccountEvent, AccountSnapshot } from '@vop/contracts';
import { createPgliteClient } from '@vop/event-store';
import type { Bus } from '@vop/messaging';
import { toOutgoingMessage } from '@vop/outbox';
import { germanIban } from '@vop/testing';
import {
  findDomesticAccounts,
  migrateDomesticAccounts,
  projectDomesticAccount,
} from './read-model.js';
import { rebuildDomesticAccounts } from './rebuild.js';

const SCHEMA = 'batch';
const first = { sortCode: '089999', accountNumber: '66374958' };
const second = { sortCode: '089999', accountNumber: '11111111' };
const third = { sortCode: '400515', accountNumber: '22222222' };

function snapshot(index: number, pair: typeof first): AccountSnapshot {
  return {
    accountId: `6f1c2a57-0d5e-4b8a-9a51-3f4f8a1d2e0${index}`,
    iban: germanIban(index),
    name: 'Erika Mustermann',
    alternateNames: [],
    status: 'active',
    domesticAccount: pair,
  };
}

/** The account events as the gateway's outbox relay publishes them (keyed by IBAN). */
function published(events: AccountEvent[]) {
  return events.map((event, index) =>
    toOutgoingMessage(
      {
        eventId: randomUUID(),
        streamId: `account-${event.data.accountId}`,
        streamPosition: 1,
        globalPosition: BigInt(index + 1),
        transactionId: String(index + 1),
        type: event.type,
        data: event.data,
        metadata: {},
        occurredAt: new Date('2026-03-01T09:00:00.000Z'),
      },
      event.data.iban,
    ),
  );
}

/**
 * The rebuild of the domestic accounts read model, on whichever bus `connect` gives (in process, or
 * Kafka): given account events on the topic and a read model that no longer matches them, the
 * rebuild leaves exactly the rows the events give.
 */
export function domesticAccountsRebuildSpec(connect: () => Bus): void {
  it('given account events on the topic and a stale read model, when rebuilt, then the pairs find what the events say', async () => {
    const sql = await createPgliteClient({});
    const bus = connect();
    const namespace = `rebuild-${randomUUID().slice(0, 8)}.`;
    const topic = `${namespace}vop.account-events.v1`;
    try {
      await bus.ensureTopics([{ name: topic, partitions: 8 }]);
      const one = snapshot(1, first);
      const two = snapshot(2, second);
      await bus.publish(
        topic,
        published([
          { type: 'AccountOpened', data: { ...one, createdAt: '2026-03-01T09:00:00.000Z' } },
          { type: 'AccountOpened', data: { ...two, createdAt: '2026-03-01T09:00:01.000Z' } },
          {
            type: 'AccountUpdated',
            data: {
              ...one,
              iban: germanIban(3),
              status: 'blocked',
              previousIban: one.iban,
              updatedAt: '2026-03-01T10:00:00.000Z',
            },
          },
          {
            type: 'AccountDeleted',
            data: {
              accountId: two.accountId,
              iban: two.iban,
              deletedAt: '2026-03-01T11:00:00.000Z',
            },
          },
        ]),
      );
      // Stale: an account no event opened, and the first account as it was before its update.
      await migrateDomesticAccounts(sql, SCHEMA);
      await sql.transaction(async (tx) => {
        await projectDomesticAccount(tx, SCHEMA, {
          type: 'AccountOpened',
          data: { ...snapshot(4, third), createdAt: '2026-03-01T09:00:00.000Z' },
        });
      });
      await sql.query(
        `INSERT INTO ${SCHEMA}.domestic_accounts (account_id, sort_code, account_number, iban, status, as_of)
         VALUES ($1, $2, $3, $4, 'active', '2030-01-01T00:00:00Z')`,
        [one.accountId, first.sortCode, first.accountNumber, germanIban(1)],
      );

      const { events } = await rebuildDomesticAccounts({
        sql,
        schema: SCHEMA,
        bus,
        topic,
        groupId: `${namespace}batch-domestic-accounts-rebuild`,
        timeoutMs: 60_000,
      });

      assert.equal(events, 4);
      assert.deepEqual(await findDomesticAccounts(sql, SCHEMA, [first, second, third]), [
        { ...first, iban: germanIban(3), status: 'blocked' },
      ]);
    } finally {
      await bus.close();
      await sql.close();
    }
  });
}
