import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { accountStreamId, topicNames } from '@vop/contracts';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { createInProcessBus, type InProcessBus, type OutgoingMessage } from '@vop/messaging';
import { createLogger, createMetricsRegistry } from '@vop/observability';
import { STREAM_ID_HEADER, STREAM_POSITION_HEADER, toOutgoingMessage } from '@vop/outbox';
import { germanIban } from '@vop/testing';
import { accountOpened, countingTransactions } from './account-copy-spec-helpers.js';
import { AccountProjection } from './account-projection-consumer.js';
import { findAccountsByIbans } from './account-projection.js';
import type { AccountEvent } from '@vop/contracts';

const topics = topicNames();
const SCHEMA = 'copy';

describe("a deciding service's copy of the accounts (AccountProjection)", () => {
  let sql: SqlClient;
  let bus: InProcessBus;

  before(async () => {
    sql = await createPgliteClient({});
    bus = createInProcessBus({ redeliveryDelayMs: 10 });
  });

  after(async () => {
    await bus.close();
    await sql.close();
  });

  it('is not caught up while account events published before it are not applied, and stays caught up once it was', async () => {
    const first = germanIban(1_001);
    await bus.publish(topics.accountEvents, [accountOpened(first)]);
    const projection = new AccountProjection({
      sql,
      bus,
      logger: createLogger({ service: 'copy-test', level: 'silent' }),
      schema: SCHEMA,
      groupId: 'copy-accounts',
      topic: topics.accountEvents,
    });
    await projection.migrate();
    await projection.listen();
    await assert.rejects(projection.checkCaughtUp(), /1 account events behind/);

    const subscription = await projection.subscribe();
    await bus.settled();
    await projection.checkCaughtUp();
    assert.equal((await findAccountsByIbans(sql, SCHEMA, [first])).get(first)?.status, 'active');

    // A later change not applied yet is an account change's normal delay, not a copy filling up.
    await subscription.close();
    await bus.publish(topics.accountEvents, [accountOpened(germanIban(1_002))]);
    await projection.checkCaughtUp();
    await projection.stop();
  });

  it('given an account written at commit, then a round sees it at once, and its later delivery is not counted as late', async () => {
    const metrics = createMetricsRegistry({ service: 'copy-test', collectDefaultMetrics: false });
    // A topic of its own: only this test's account events.
    const bus = createInProcessBus({ redeliveryDelayMs: 10 });
    const projection = new AccountProjection({
      sql,
      bus,
      logger: createLogger({ service: 'copy-test', level: 'silent' }),
      schema: 'copy_at_commit',
      groupId: 'copy-at-commit-accounts',
      topic: topics.accountEvents,
      metrics,
    });
    await projection.migrate();
    await projection.listen();
    const subscription = await projection.subscribe();
    await bus.settled();
    const loadRows = (ibans: string[]) => findAccountsByIbans(sql, 'copy_at_commit', ibans);

    const written = germanIban(1_003);
    const accountId = randomUUID();
    // The copy remembers the IBAN as unknown, as a check before the write would have left it.
    assert.equal((await projection.cache.find([written], loadRows)).size, 0);
    const message = accountOpened(written, accountId);
    const { data } = JSON.parse(message.value) as { data: AccountEvent['data'] };
    const copy = projection.atCommit();
    await sql.transaction((tx) =>
      copy.apply(tx, [{ event: { type: 'AccountOpened', data } as AccountEvent, revision: 1 }]),
    );
    copy.committed();
    assert.equal(
      (await projection.cache.find([written], loadRows)).get(written)?.accountId,
      accountId,
    );

    await bus.publish(topics.accountEvents, [message, accountOpened(germanIban(1_004))]);
    await bus.settled();
    const page = await metrics.registry.metrics();
    // Only the account that reached the copy by the topic alone was late.
    assert.match(
      page,
      /^account_copy_lag_seconds_count\{[^}]*copy="copy-at-commit-accounts"[^}]*\} 1$/m,
    );
    await subscription.close();
    await projection.stop();
    await bus.close();
  });

  it("given a read model alongside, then it is kept from the copy's deliveries in the copy's transaction", async () => {
    const bus = createInProcessBus({ redeliveryDelayMs: 10 });
    await sql.query('CREATE TABLE alongside_rows (account_id text NOT NULL)');
    let calls = 0;
    const projection = new AccountProjection({
      sql,
      bus,
      logger: createLogger({ service: 'copy-test', level: 'silent' }),
      schema: 'copy_alongside',
      groupId: 'copy-alongside-accounts',
      topic: topics.accountEvents,
      alongside: async (tx, events) => {
        calls++;
        for (const event of events)
          await tx.query('INSERT INTO alongside_rows (account_id) VALUES ($1)', [
            event.data.accountId,
          ]);
        // The first delivery fails after both read models wrote: neither write may stay.
        if (calls === 1) throw new Error('the read model alongside failed');
        return new Set(events.map((event) => event.data.accountId));
      },
    });
    await projection.migrate();
    const subscription = await projection.subscribe();
    const iban = germanIban(1_006);
    const accountId = randomUUID();
    await bus.publish(topics.accountEvents, [accountOpened(iban, accountId)]);
    await bus.settled();

    assert.equal(calls, 2, 'the failed delivery came again');
    const { rows } = await sql.query<{ account_id: string }>(
      'SELECT account_id FROM alongside_rows',
    );
    assert.deepEqual(
      rows.map((row) => row.account_id),
      [accountId],
      "the failed delivery's write alongside was rolled back with the copy's",
    );
    assert.equal(
      (await findAccountsByIbans(sql, 'copy_alongside', [iban])).get(iban)?.accountId,
      accountId,
    );
    await subscription.close();
    await projection.stop();
    await bus.close();
  });

  /** A copy on a bus of its own, subscribed, holding one account it had at commit (revision 1). */
  async function copyHoldingOneAccount(schema: string, iban: string) {
    const bus = createInProcessBus({ redeliveryDelayMs: 10 });
    // Counts the projection's transactions: a delivery it already had must not open one.
    const counted = countingTransactions(sql);
    const projection = new AccountProjection({
      sql: counted.sql,
      bus,
      logger: createLogger({ service: 'copy-test', level: 'silent' }),
      schema,
      groupId: `${schema}-accounts`,
      topic: topics.accountEvents,
    });
    await projection.migrate();
    const copy = projection.atCommit();
    const subscription = await projection.subscribe();
    const accountId = randomUUID();
    const opened = accountOpened(iban, accountId);
    const { data } = JSON.parse(opened.value) as { data: AccountEvent['data'] };
    await sql.transaction((tx) =>
      copy.apply(tx, [{ event: { type: 'AccountOpened', data } as AccountEvent, revision: 1 }]),
    );
    copy.committed();
    /** The account renamed, as the relay publishes it. */
    const renamed = (name: string, streamPosition: number) =>
      toOutgoingMessage(
        {
          eventId: randomUUID(),
          streamId: accountStreamId(accountId),
          streamPosition,
          globalPosition: BigInt(streamPosition),
          transactionId: String(streamPosition),
          type: 'AccountUpdated',
          data: { ...data, name, previousIban: iban, updatedAt: '2026-03-02T00:00:00.000Z' },
          metadata: {},
          occurredAt: new Date('2026-03-02T00:00:00.000Z'),
        },
        iban,
      );
    const nameInCopy = async () => (await findAccountsByIbans(sql, schema, [iban])).get(iban)?.name;
    const close = async () => {
      await subscription.close();
      await projection.stop();
      await bus.close();
    };
    return { bus, counted, opened, renamed, nameInCopy, close };
  }

  it('given a copy written at commit, then a delivery of what it has is read once and never written, and a newer revision is applied', async () => {
    const { bus, counted, opened, renamed, nameInCopy, close } = await copyHoldingOneAccount(
      'copy_skipping',
      germanIban(1_005),
    );
    const before = counted.count();
    await bus.publish(topics.accountEvents, [opened]);
    await bus.settled();
    assert.equal(counted.count() - before, 0, 'what the copy had at commit is not written again');

    await bus.publish(topics.accountEvents, [renamed('Erika Musterfrau', 2)]);
    await bus.settled();
    assert.equal(counted.count() - before, 1);
    assert.equal(await nameInCopy(), 'Erika Musterfrau');
    await close();
  });

  it('given a copy written at commit, then its stream headers decide what it has, and a message published without them is parsed for it', async () => {
    const { bus, counted, opened, renamed, nameInCopy, close } = await copyHoldingOneAccount(
      'copy_by_headers',
      germanIban(1_006),
    );
    const before = counted.count();

    // Its headers say revision 1, which the copy has; its envelope says 2: the headers are what is read.
    const newer = renamed('Erika Musterfrau', 2);
    await bus.publish(topics.accountEvents, [
      { ...newer, headers: { ...newer.headers, [STREAM_POSITION_HEADER]: '1' } },
    ]);
    await bus.settled();
    assert.equal(counted.count() - before, 0, 'passed over by its headers, its envelope unread');
    assert.equal(await nameInCopy(), 'Erika Mustermann');

    // As published before the stream headers: what the copy has is found from the envelope.
    const withoutStream = (message: OutgoingMessage): OutgoingMessage => {
      const headers = { ...message.headers };
      delete headers[STREAM_ID_HEADER];
      delete headers[STREAM_POSITION_HEADER];
      return { ...message, headers };
    };
    await bus.publish(topics.accountEvents, [withoutStream(opened)]);
    await bus.settled();
    assert.equal(counted.count() - before, 0, 'what the copy had is not written again');
    await bus.publish(topics.accountEvents, [withoutStream(renamed('Erika Musterfrau', 2))]);
    await bus.settled();
    assert.equal(counted.count() - before, 1);
    assert.equal(await nameInCopy(), 'Erika Musterfrau');

    // A newer revision by its headers is applied.
    await bus.publish(topics.accountEvents, [renamed('Erika Beispiel', 3)]);
    await bus.settled();
    assert.equal(counted.count() - before, 2);
    assert.equal(await nameInCopy(), 'Erika Beispiel');
    await close();
  });
});
