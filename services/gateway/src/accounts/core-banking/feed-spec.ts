import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { CoreBankingDeadLetter, parseAccountEvent, topicNames } from '@vop/contracts';
import { AccountProjection, findAccountsByIbans } from '@vop/verifications';
import { EventStore, type SqlClient } from '@vop/event-store';
import type { Bus, Subscription } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import { accountEventProtector, createPersonalData } from '@vop/personal-data';
import { eventually, germanIban } from '@vop/testing';
import { findLiveAccountIdByIban, migrateAccountsReadModel } from '../read-model.js';
import { migrateCoreBankingFeed, subscribeToCoreBankingFeed } from './feed-consumer.js';

const SCHEMA = 'gateway';

/** One spec for the feed, on PGlite with the in-process bus and on PostgreSQL with Kafka. */
export function coreBankingFeedSpec(
  name: string,
  setup: () => Promise<{ sql: SqlClient; bus: Bus; close: () => Promise<void> }>,
) {
  describe(`core-banking feed (${name})`, { timeout: 120_000 }, () => {
    let sql: SqlClient;
    let bus: Bus;
    let close: () => Promise<void>;
    let store: EventStore;
    /** A decider's copy of the accounts in the same database, written by the feed's changes. */
    let copy: AccountProjection;
    const subscriptions: Subscription[] = [];
    const deadLetters: CoreBankingDeadLetter[] = [];
    const topics = topicNames(`cbs-${randomUUID().slice(0, 8)}.`);

    before(async () => {
      ({ sql, bus, close } = await setup());
      store = new EventStore(sql, { schema: SCHEMA });
      const { keys, cipher } = createPersonalData(sql);
      await keys.migrate();
      await store.migrate();
      await migrateAccountsReadModel(sql, SCHEMA);
      await migrateCoreBankingFeed(sql, SCHEMA);
      copy = new AccountProjection({
        sql,
        bus,
        logger: createLogger({ service: 'test', level: 'silent' }),
        schema: `${SCHEMA}_decisions`,
        groupId: `${topics.accountEvents}-copy`,
        topic: topics.accountEvents,
      });
      await copy.migrate();
      await bus.ensureTopics([
        { name: topics.coreBankingAccountChanges, partitions: 4 },
        { name: topics.coreBankingDeadLetters, partitions: 1 },
      ]);
      subscriptions.push(
        await subscribeToCoreBankingFeed({
          bus,
          store,
          protect: accountEventProtector(cipher),
          copy: copy.atCommit(),
          topics,
          groupPrefix: topics.coreBankingAccountChanges,
          logger: createLogger({ service: 'test', level: 'silent' }),
          clock: () => new Date(),
          newId: randomUUID,
        }),
        await bus.subscribe({
          groupId: `${topics.coreBankingDeadLetters}-reader`,
          topics: [topics.coreBankingDeadLetters],
          handler: async (message) =>
            void deadLetters.push(CoreBankingDeadLetter.parse(JSON.parse(message.value))),
        }),
      );
    });

    after(async () => {
      for (const subscription of subscriptions) await subscription.close();
      await close();
    });

    const publish = (iban: string, ...values: unknown[]) =>
      bus.publish(
        topics.coreBankingAccountChanges,
        values.map((value) => ({
          key: iban,
          value: typeof value === 'string' ? value : JSON.stringify(value),
        })),
      );

    async function accountEvents(accountId: string) {
      const stored = await store.readStream(`account-${accountId}`);
      return stored.map((event) => parseAccountEvent(event.type, event.data));
    }

    const WAIT = { timeoutMs: 60_000 };
    const liveAccount = (iban: string, what = 'the account') =>
      eventually(() => findLiveAccountIdByIban(sql, SCHEMA, iban), { ...WAIT, what });

    /** The account's events once the feed applied its closure (the last change each spec sends). */
    async function eventsUntilClosed(iban: string) {
      const accountId = await liveAccount(iban);
      return eventually(
        async () => {
          const found = await accountEvents(accountId);
          const last = found.at(-1);
          return last?.type === 'AccountUpdated' && last.data.status === 'closed'
            ? found
            : undefined;
        },
        { ...WAIT, what: 'the closure' },
      );
    }

    it("given an opening applied, then the decider's copy in the same database holds it at once (its transaction)", async () => {
      const iban = germanIban(610_900);
      await publish(iban, {
        type: 'AccountOpened',
        sourceEventId: 'copy-1',
        occurredAt: new Date().toISOString(),
        iban,
        name: 'Copied Holder',
      });
      const accountId = await liveAccount(iban);
      // Nothing consumes the account events here: only the change's own transaction wrote the copy.
      const copied = await findAccountsByIbans(sql, copy.schema, [iban]);
      assert.equal(copied.get(iban)?.accountId, accountId);
    });

    it('given changes of one IBAN in order, then the record follows them: opened, renamed, holders, closed', async () => {
      const iban = germanIban(610_001);
      const at = new Date().toISOString();
      await publish(
        iban,
        {
          type: 'AccountOpened',
          sourceEventId: 'o-1',
          occurredAt: at,
          iban,
          name: 'Erika Mustermann',
        },
        {
          type: 'AccountRenamed',
          sourceEventId: 'r-1',
          occurredAt: at,
          iban,
          name: 'Erika Musterfrau',
        },
        {
          type: 'HoldersChanged',
          sourceEventId: 'h-1',
          occurredAt: at,
          iban,
          alternateNames: ['Hans Musterfrau'],
        },
        { type: 'AccountClosed', sourceEventId: 'c-1', occurredAt: at, iban },
      );
      const events = await eventsUntilClosed(iban);

      assert.deepEqual(
        events.map((event) => event.type),
        ['AccountOpened', 'AccountUpdated', 'AccountUpdated', 'AccountUpdated'],
      );
      const last = events[3];
      assert.ok(last?.type === 'AccountUpdated');
      assert.equal(last.data.status, 'closed');
      // Names are stored encrypted, as through the API.
      assert.match(last.data.name, /^pd1:/);
      assert.deepEqual(last.data.alternateNames.length, 1);
    });

    it('given the same change twice (a retry of the core system), then it is applied once', async () => {
      const iban = germanIban(610_002);
      const opened = {
        type: 'AccountOpened',
        sourceEventId: 'dup-1',
        occurredAt: new Date().toISOString(),
        iban,
        name: 'Max Muster',
      };
      await publish(iban, opened, opened);
      const renamed = {
        type: 'AccountRenamed',
        sourceEventId: 'dup-2',
        occurredAt: new Date().toISOString(),
        iban,
        name: 'Max Mustermann',
      };
      // Changes of one IBAN are applied in order: once the closure is in, both copies were seen.
      const closed = {
        type: 'AccountClosed',
        sourceEventId: 'dup-3',
        occurredAt: new Date().toISOString(),
        iban,
      };
      await publish(iban, renamed, renamed, closed);
      const events = await eventsUntilClosed(iban);
      assert.deepEqual(
        events.map((event) => event.type),
        ['AccountOpened', 'AccountUpdated', 'AccountUpdated'],
      );
      const { rows } = await sql.query<{ count: string }>(
        `SELECT count(*)::text AS count FROM ${SCHEMA}.core_banking_changes
          WHERE source_event_id IN ('dup-1', 'dup-2', 'dup-3')`,
      );
      assert.equal(rows[0]?.count, '3');
    });

    it('given bad messages, then each goes to the dead-letter topic with its reason, and the feed goes on', async () => {
      const iban = germanIban(610_003);
      const at = new Date().toISOString();
      await publish(
        iban,
        'not json {',
        {
          type: 'AccountOpened',
          sourceEventId: 'bad-1',
          occurredAt: at,
          iban: 'DE00 1234',
          name: 'X',
        },
        {
          type: 'AccountRenamed',
          sourceEventId: 'bad-2',
          occurredAt: at,
          iban,
          name: 'Nobody Known',
        },
        {
          type: 'AccountOpened',
          sourceEventId: 'good-1',
          occurredAt: at,
          iban,
          name: 'After The Bad Ones',
        },
      );
      await liveAccount(iban, 'the good change after the bad ones');
      const letters = await eventually(
        async () => (deadLetters.length >= 3 ? deadLetters : undefined),
        { ...WAIT, what: 'dead letters' },
      );
      assert.deepEqual(
        letters.map(({ reason, field }) => ({ reason, field })),
        [
          { reason: 'NOT_JSON', field: undefined },
          { reason: 'INVALID_CHANGE', field: 'iban' },
          { reason: 'UNKNOWN_ACCOUNT', field: undefined },
        ],
      );
      assert.equal(letters[0]?.value, 'not json {');
    });
  });
}
