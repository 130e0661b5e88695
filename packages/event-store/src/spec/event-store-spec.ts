import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { ConcurrencyError } from '../concurrency-error.js';
import { EventStore } from '../event-store.js';
import {
  START,
  type Checkpoint,
  type NewEvent,
  type RecordedEvent,
  type SqlClient,
} from '../types.js';
import { countedWrite, writeTogether, type WriteStatement } from '../write-together.js';
import { waitUntil } from './wait-until.js';

export interface EventStoreSpecTarget {
  /** The client under test; opened by the caller's before() hook. */
  client(): SqlClient;
  /** Resolves once every notification committed so far has been delivered to the client's listeners. */
  settleNotifications(): Promise<void>;
}

/** The behaviour every SqlClient must give the EventStore; run once per client kind. */
export function eventStoreSpec(target: EventStoreSpecTarget): void {
  const schemas: string[] = [];

  async function freshStore(): Promise<EventStore> {
    const schema = `es_spec_${randomBytes(5).toString('hex')}`;
    schemas.push(schema);
    const store = new EventStore(target.client(), { schema });
    await store.migrate();
    return store;
  }

  after(async () => {
    for (const schema of schemas)
      await target.client().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  describe('append and read', () => {
    it('stores events with their type, data, metadata and ids, and reads them back in order', async () => {
      const store = await freshStore();
      const eventId = randomUUID();
      const events: NewEvent[] = [
        {
          type: 'AccountOpened',
          data: { holder: { kind: 'person' }, tags: ['a', 'b'], score: 0.75, note: 'Zoë Ærø' },
          eventId,
        },
        {
          type: 'AccountBlocked',
          data: 'plain string',
          metadata: { correlationId: 'c-1', traceparent: '00-abc-def-01' },
        },
        { type: 'Empty', data: null },
      ];

      const result = await store.append('account-1', events, { expectedVersion: 'no_stream' });
      const read = await store.readStream('account-1');

      assert.equal(result.nextExpectedVersion, 3);
      assert.deepEqual(read, result.events);
      assert.deepEqual(
        read.map((event) => event.streamPosition),
        [1, 2, 3],
      );
      assert.deepEqual(
        read.map((event) => event.type),
        ['AccountOpened', 'AccountBlocked', 'Empty'],
      );
      assert.deepEqual(
        read.map((event) => event.data),
        events.map((event) => event.data),
      );
      assert.deepEqual(
        read.map((event) => event.metadata),
        [{}, { correlationId: 'c-1', traceparent: '00-abc-def-01' }, {}],
      );
      assert.equal(read[0]?.eventId, eventId);
      assert.match(
        read[1]?.eventId ?? '',
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      for (const event of read) {
        assert.equal(event.streamId, 'account-1');
        assert.equal(typeof event.globalPosition, 'bigint');
        assert.match(event.transactionId, /^[0-9]+$/);
        assert.ok(event.occurredAt instanceof Date && !Number.isNaN(event.occurredAt.getTime()));
      }
      assert.ok(
        read[0]!.globalPosition < read[1]!.globalPosition &&
          read[1]!.globalPosition < read[2]!.globalPosition,
      );
    });

    it('reports version 0 and no events for a stream that does not exist', async () => {
      const store = await freshStore();
      assert.equal(await store.streamVersion('nobody'), 0);
      assert.deepEqual(await store.readStream('nobody'), []);
    });

    it('reads the last event of a stream alone, and none for a stream that does not exist', async () => {
      const store = await freshStore();
      await store.append(
        'snapshots',
        [
          { type: 'Loaded', data: { n: 1 } },
          { type: 'Loaded', data: { n: 2 } },
        ],
        { expectedVersion: 'no_stream' },
      );
      const last = await store.readLastEvent('snapshots');
      assert.deepEqual([last?.streamPosition, last?.data], [2, { n: 2 }]);
      assert.equal(await store.readLastEvent('nobody'), undefined);
    });

    it('keeps streams apart', async () => {
      const store = await freshStore();
      await store.append('a', [{ type: 'A1', data: 1 }], { expectedVersion: 'no_stream' });
      await store.append(
        'b',
        [
          { type: 'B1', data: 1 },
          { type: 'B2', data: 2 },
        ],
        { expectedVersion: 'no_stream' },
      );

      assert.deepEqual(
        (await store.readStream('a')).map((event) => event.type),
        ['A1'],
      );
      assert.deepEqual(
        (await store.readStream('b')).map((event) => event.type),
        ['B1', 'B2'],
      );
      assert.equal(await store.streamVersion('b'), 2);
    });

    it('rejects an event id that is already stored, leaving the stream unchanged', async () => {
      const store = await freshStore();
      const eventId = randomUUID();
      await store.append('a', [{ type: 'A', data: 1, eventId }], { expectedVersion: 'no_stream' });

      await assert.rejects(
        store.append('b', [{ type: 'B', data: 1, eventId }], { expectedVersion: 'no_stream' }),
        (error: unknown) =>
          !(error instanceof ConcurrencyError) && (error as { code?: string }).code === '23505',
      );
      assert.equal(await store.streamVersion('b'), 0);
    });
  });

  describe('readStreams (bulk writers load many aggregates at once)', () => {
    it('reads each named stream in order, leaves out streams that do not exist', async () => {
      const store = await freshStore();
      await store.append(
        's-1',
        [
          { type: 'A', data: 1 },
          { type: 'B', data: 2 },
        ],
        {
          expectedVersion: 'no_stream',
        },
      );
      await store.append('s-2', [{ type: 'C', data: 3 }], { expectedVersion: 'no_stream' });
      const streams = await store.readStreams(['s-2', 's-1', 'none']);
      assert.deepEqual([...streams.keys()].sort(), ['s-1', 's-2']);
      assert.deepEqual(
        streams.get('s-1')?.map((event) => [event.streamPosition, event.type, event.data]),
        [
          [1, 'A', 1],
          [2, 'B', 2],
        ],
      );
      assert.equal((await store.readStreams([])).size, 0);
    });
  });

  describe('startStreams (group commit of new streams)', () => {
    it('starts many streams in one statement, positions 1..n per stream, in the given order', async () => {
      const store = await freshStore();
      const recorded = await store.startStreams([
        { streamId: 'verification-a', events: [{ type: 'Requested', data: { n: 1 } }] },
        {
          streamId: 'verification-b',
          events: [
            { type: 'Requested', data: { n: 2 } },
            { type: 'Noted', data: { n: 3 } },
          ],
        },
      ]);
      assert.deepEqual(
        recorded.map((event) => [event.streamId, event.streamPosition, event.type]),
        [
          ['verification-a', 1, 'Requested'],
          ['verification-b', 1, 'Requested'],
          ['verification-b', 2, 'Noted'],
        ],
      );
      assert.equal(await store.streamVersion('verification-b'), 2);
      assert.deepEqual(
        (await store.readStream('verification-a')).map((event) => event.data),
        [{ n: 1 }],
      );
    });

    it("refuses a stream that exists with ConcurrencyError, inserting nothing; 'skip' leaves it and inserts the rest", async () => {
      const store = await freshStore();
      await store.append('verification-x', [{ type: 'Requested', data: 1 }], {
        expectedVersion: 'no_stream',
      });
      await assert.rejects(
        store.startStreams([
          { streamId: 'verification-new', events: [{ type: 'Requested', data: 2 }] },
          { streamId: 'verification-x', events: [{ type: 'Requested', data: 3 }] },
        ]),
        ConcurrencyError,
      );
      assert.equal(await store.streamVersion('verification-new'), 0);
      const inserted = await store.startStreams(
        [
          { streamId: 'verification-new', events: [{ type: 'Requested', data: 2 }] },
          { streamId: 'verification-x', events: [{ type: 'Requested', data: 3 }] },
        ],
        { ifExists: 'skip' },
      );
      assert.deepEqual(
        inserted.map((event) => event.streamId),
        ['verification-new'],
      );
      assert.deepEqual(
        (await store.readStream('verification-x')).map((event) => event.data),
        [1],
      );
    });

    it('startStreamsCounted writes the same events and tells how many it inserted', async () => {
      const store = await freshStore();
      await store.append('s-old', [{ type: 'A', data: 0 }], { expectedVersion: 'no_stream' });
      const count = await store.startStreamsCounted(
        [
          { streamId: 's-old', events: [{ type: 'A', data: 1 }] },
          {
            streamId: 's-new',
            events: [
              { type: 'A', data: 2 },
              { type: 'B', data: 3 },
            ],
          },
        ],
        { ifExists: 'skip' },
      );
      assert.equal(count, 2);
      assert.deepEqual(
        (await store.readStream('s-new')).map((event) => [event.streamPosition, event.data]),
        [
          [1, 2],
          [2, 3],
        ],
      );
    });

    it('is read by readAll like any append', async () => {
      const store = await freshStore();
      await store.startStreams([
        { streamId: 's-1', events: [{ type: 'A', data: null }] },
        { streamId: 's-2', events: [{ type: 'B', data: null }] },
      ]);
      const { events } = await store.readAll({ after: START, limit: 10 });
      assert.deepEqual(
        events.map((event) => event.streamId),
        ['s-1', 's-2'],
      );
    });
  });

  describe("writeTogether (the recorder's round in one statement)", () => {
    it('countedWrite answers how many rows a write touched, not the rows', async () => {
      const store = await freshStore();
      const write = store.startStreamsWrite([
        { streamId: 'counted-a', events: [{ type: 'A', data: 1 }] },
        {
          streamId: 'counted-b',
          events: [
            { type: 'B1', data: 1 },
            { type: 'B2', data: 2 },
          ],
        },
      ]);
      const { text, params } = countedWrite(write);
      const { rows } = await target.client().query(text, params);
      assert.deepEqual(rows, [{ written: 3 }]);
      assert.deepEqual(
        (await store.readStream('counted-b')).map((event) => event.type),
        ['B1', 'B2'],
      );
    });

    it('writes new streams of two stores and another table in one statement, counts each write and wakes both stores', async () => {
      const first = await freshStore();
      const second = await freshStore();
      const table = `${first.schema}.rows_written`;
      await first.sql.query(`CREATE TABLE ${table} (id integer PRIMARY KEY)`);
      let firstWakeUps = 0;
      let secondWakeUps = 0;
      const stops = [
        await first.onAppend(() => (firstWakeUps += 1)),
        await second.onAppend(() => (secondWakeUps += 1)),
      ];
      try {
        const touched = await writeTogether(first.sql, [
          first.startStreamsWrite([
            { streamId: 'r-1', events: [{ type: 'Requested', data: { n: 1 } }] },
            { streamId: 'r-2', events: [{ type: 'Requested', data: { n: 2 } }] },
          ]),
          second.startStreamsWrite([{ streamId: 'c-1', events: [{ type: 'Completed', data: 3 }] }]),
          {
            text: `INSERT INTO ${table} SELECT unnest($1::integer[]) RETURNING id`,
            params: [[7, 8, 9]],
          },
        ]);
        assert.deepEqual(touched, [2, 1, 3]);
        assert.deepEqual(
          (await first.readAll({ after: START, limit: 10 })).events.map((event) => [
            event.streamId,
            event.streamPosition,
            event.data,
          ]),
          [
            ['r-1', 1, { n: 1 }],
            ['r-2', 1, { n: 2 }],
          ],
        );
        assert.deepEqual(
          (await second.readStream('c-1')).map((event) => event.data),
          [3],
        );
        await waitUntil(() => firstWakeUps >= 1 && secondWakeUps >= 1, 'both wake-ups');
      } finally {
        for (const stop of stops) await stop();
      }
    });

    it('numbers each statement after its own writes: the same writes again, in another order, with more parameters', async () => {
      const store = await freshStore();
      const table = `${store.schema}.numbers_written`;
      await store.sql.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, label text NOT NULL)`);
      const labelled = (ids: number[], label: string): WriteStatement => ({
        text: `INSERT INTO ${table} SELECT unnest($1::integer[]), $2 RETURNING id`,
        params: [ids, label],
      });
      const streams = (id: string): WriteStatement =>
        store.startStreamsWrite([{ streamId: id, events: [{ type: 'Requested', data: id }] }]);
      assert.deepEqual(
        await writeTogether(store.sql, [streams('n-1'), labelled([1, 2], 'a')]),
        [1, 2],
      );
      assert.deepEqual(
        await writeTogether(store.sql, [streams('n-2'), labelled([3], 'b')]),
        [1, 1],
      );
      assert.deepEqual(
        await writeTogether(store.sql, [labelled([4, 5, 6], 'c'), streams('n-3')]),
        [3, 1],
      );
      // A text of one parameter more beside the same stream write: numbered for its own parameters.
      const widened: WriteStatement = {
        text: `INSERT INTO ${table} SELECT unnest($1::integer[]), $2 || $3 RETURNING id`,
        params: [[7], 'd', '!'],
      };
      assert.deepEqual(await writeTogether(store.sql, [streams('n-4'), widened]), [1, 1]);
      const { rows } = await store.sql.query<{ id: number; label: string }>(
        `SELECT id, label FROM ${table} ORDER BY id`,
      );
      assert.deepEqual(
        rows.map((row) => [row.id, row.label]),
        [
          [1, 'a'],
          [2, 'a'],
          [3, 'b'],
          [4, 'c'],
          [5, 'c'],
          [6, 'c'],
          [7, 'd!'],
        ],
      );
      assert.deepEqual(
        (await store.readAll({ after: START, limit: 10 })).events.map((event) => event.data),
        ['n-1', 'n-2', 'n-3', 'n-4'],
      );
    });

    it('writes nothing when one write fails: a stream that exists refuses the whole statement', async () => {
      const first = await freshStore();
      const second = await freshStore();
      await second.startStreams([
        { streamId: 'c-taken', events: [{ type: 'Completed', data: 0 }] },
      ]);
      let wakeUps = 0;
      const stop = await first.onAppend(() => (wakeUps += 1));
      try {
        await assert.rejects(
          writeTogether(first.sql, [
            first.startStreamsWrite([
              { streamId: 'r-1', events: [{ type: 'Requested', data: 1 }] },
            ]),
            second.startStreamsWrite([
              { streamId: 'c-taken', events: [{ type: 'Completed', data: 1 }] },
            ]),
          ]),
          (error: unknown) => (error as { code?: unknown }).code === '23505',
        );
        assert.deepEqual(await first.readStream('r-1'), []);
        assert.equal((await second.readStream('c-taken')).length, 1);
        await target.settleNotifications();
        assert.equal(wakeUps, 0, 'woken by a statement that wrote nothing');
      } finally {
        await stop();
      }
    });
  });

  describe('readAll of one large transaction', () => {
    it('pages it in position order, past positions of more digits (not their text order)', async () => {
      const store = await freshStore();
      // A batch of 1,200 new streams in one transaction: positions 1..1,200, four digits after 999.
      await store.startStreams(
        Array.from({ length: 1200 }, (_, index) => ({
          streamId: `entry-${index}`,
          events: [{ type: 'Requested', data: index }],
        })),
      );
      const read: number[] = [];
      for (let checkpoint = START; ;) {
        const page = await store.readAll({ after: checkpoint, limit: 500 });
        if (page.events.length === 0) break;
        read.push(...page.events.map((event) => event.data as number));
        checkpoint = page.checkpoint;
      }
      assert.deepEqual(
        read,
        Array.from({ length: 1200 }, (_, index) => index),
      );
    });
  });

  describe('expected versions', () => {
    it('appends at the exact version and refuses a stale one with a ConcurrencyError', async () => {
      const store = await freshStore();
      await store.append(
        's',
        [
          { type: 'E', data: 1 },
          { type: 'E', data: 2 },
        ],
        { expectedVersion: 'no_stream' },
      );
      const next = await store.append('s', [{ type: 'E', data: 3 }], { expectedVersion: 2 });
      assert.equal(next.nextExpectedVersion, 3);

      await assert.rejects(
        store.append('s', [{ type: 'E', data: 4 }], { expectedVersion: 2 }),
        (error: unknown) => {
          assert.ok(error instanceof ConcurrencyError);
          assert.equal(error.streamId, 's');
          assert.equal(error.expected, 2);
          assert.equal(error.actual, 3);
          assert.match(error.message, /expected the stream at version 2, but it is at version 3/);
          return true;
        },
      );
      assert.equal(await store.streamVersion('s'), 3);
    });

    it("treats 'no_stream' as version 0", async () => {
      const store = await freshStore();
      await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 0 });
      await assert.rejects(
        store.append('s', [{ type: 'E', data: 2 }], { expectedVersion: 'no_stream' }),
        (error: unknown) =>
          error instanceof ConcurrencyError && error.expected === 'no_stream' && error.actual === 1,
      );
    });

    it("appends after whatever is there with 'any'", async () => {
      const store = await freshStore();
      const first = await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'any' });
      const second = await store.append(
        's',
        [
          { type: 'E', data: 2 },
          { type: 'E', data: 3 },
        ],
        { expectedVersion: 'any' },
      );
      assert.equal(first.nextExpectedVersion, 1);
      assert.equal(second.nextExpectedVersion, 3);
      assert.deepEqual(
        second.events.map((event) => event.streamPosition),
        [2, 3],
      );
    });

    it('refuses an expected version that is not a non-negative integer', async () => {
      const store = await freshStore();
      await assert.rejects(
        store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: -1 }),
        RangeError,
      );
      await assert.rejects(
        store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 1.5 }),
        RangeError,
      );
    });

    it('lets exactly one of 20 concurrent appenders at the same expected version win', async () => {
      const store = await freshStore();
      await store.append('race', [{ type: 'Opened', data: {} }], { expectedVersion: 'no_stream' });
      const contenders = Array.from({ length: 20 }, (_, index) => ({
        type: 'Claimed',
        data: { index },
        eventId: randomUUID(),
      }));

      const outcomes = await Promise.allSettled(
        contenders.map((event) => store.append('race', [event], { expectedVersion: 1 })),
      );

      const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const losers = outcomes.filter(
        (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected',
      );
      assert.equal(winners.length, 1);
      assert.equal(losers.length, 19);
      for (const loser of losers) {
        assert.ok(loser.reason instanceof ConcurrencyError, String(loser.reason));
        assert.equal(loser.reason.expected, 1);
        assert.equal(loser.reason.actual, 2);
      }
      const stream = await store.readStream('race');
      assert.equal(stream.length, 2);
      const winnerIndex = outcomes.findIndex((outcome) => outcome.status === 'fulfilled');
      assert.equal(stream[1]?.eventId, contenders[winnerIndex]?.eventId);
    });

    it("serialises concurrent 'any' appenders into one dense stream", async () => {
      const store = await freshStore();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          store.append(
            'busy',
            [
              { type: 'E', data: index },
              { type: 'E', data: index },
            ],
            { expectedVersion: 'any' },
          ),
        ),
      );
      const positions = (await store.readStream('busy')).map((event) => event.streamPosition);
      assert.deepEqual(
        positions,
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      assert.deepEqual(
        results.map((result) => result.nextExpectedVersion).sort((a, b) => a - b),
        [2, 4, 6, 8, 10, 12, 14, 16, 18, 20],
      );
    });

    it('keeps stream positions dense across single, batched, refused and rolled-back appends', async () => {
      const store = await freshStore();
      await store.append('dense', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream' });
      await store.append(
        'dense',
        [
          { type: 'E', data: 2 },
          { type: 'E', data: 3 },
          { type: 'E', data: 4 },
        ],
        { expectedVersion: 1 },
      );
      await assert.rejects(
        store.append('dense', [{ type: 'E', data: 'stale' }], { expectedVersion: 1 }),
        ConcurrencyError,
      );
      await assert.rejects(
        store.sql.transaction(async (tx) => {
          await store.append('dense', [{ type: 'E', data: 'rolled back' }], {
            expectedVersion: 4,
            tx,
          });
          throw new Error('abort');
        }),
        /abort/,
      );
      await store.append(
        'dense',
        [
          { type: 'E', data: 5 },
          { type: 'E', data: 6 },
        ],
        { expectedVersion: 4 },
      );

      const stream = await store.readStream('dense');
      assert.deepEqual(
        stream.map((event) => event.streamPosition),
        [1, 2, 3, 4, 5, 6],
      );
      assert.deepEqual(
        stream.map((event) => event.data),
        [1, 2, 3, 4, 5, 6],
      );
    });
  });

  describe("the caller's transaction", () => {
    it('appends inside it: visible there, committed with it', async () => {
      const store = await freshStore();
      const seenInside = await store.sql.transaction(async (tx) => {
        await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream', tx });
        await store.saveCheckpoint('projector', { transactionId: '5', globalPosition: 9n }, tx);
        return {
          events: await store.readStream('s', { tx }),
          version: await store.streamVersion('s', { tx }),
        };
      });
      assert.equal(seenInside.events.length, 1);
      assert.equal(seenInside.version, 1);
      assert.equal(await store.streamVersion('s'), 1);
      assert.deepEqual(await store.loadCheckpoint('projector'), {
        transactionId: '5',
        globalPosition: 9n,
      });
    });

    it('discards the append and the checkpoint when the transaction rolls back', async () => {
      const store = await freshStore();
      await assert.rejects(
        store.sql.transaction(async (tx) => {
          await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream', tx });
          await store.saveCheckpoint('projector', { transactionId: '5', globalPosition: 9n }, tx);
          throw new Error('projection failed');
        }),
        /projection failed/,
      );
      assert.equal(await store.streamVersion('s'), 0);
      assert.deepEqual(await store.loadCheckpoint('projector'), START);
    });

    it('leaves the transaction usable after a ConcurrencyError', async () => {
      const store = await freshStore();
      await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream' });
      await store.sql.transaction(async (tx) => {
        await assert.rejects(
          store.append('s', [{ type: 'E', data: 2 }], { expectedVersion: 0, tx }),
          ConcurrencyError,
        );
        await store.append('s', [{ type: 'E', data: 2 }], { expectedVersion: 1, tx });
      });
      assert.equal(await store.streamVersion('s'), 2);
    });
  });

  describe('readAll', () => {
    async function readEverything(store: EventStore, expectedCount: number, pageSize: number) {
      const pages: RecordedEvent[][] = [];
      let checkpoint: Checkpoint = START;
      // Another transaction anywhere on the server can hold the snapshot xmin back for a moment, so read
      // until everything has arrived rather than until the first empty page.
      await waitUntil(async () => {
        const page = await store.readAll({ after: checkpoint, limit: pageSize });
        if (page.events.length > 0) pages.push(page.events);
        checkpoint = page.checkpoint;
        return pages.flat().length >= expectedCount;
      }, `${expectedCount} events from readAll`);
      return { pages, checkpoint };
    }

    it('pages through every stream in append order, resuming from each checkpoint', async () => {
      const store = await freshStore();
      const appended: RecordedEvent[] = [];
      appended.push(
        ...(
          await store.append(
            'a',
            [
              { type: 'A1', data: 1 },
              { type: 'A2', data: 2 },
            ],
            { expectedVersion: 'no_stream' },
          )
        ).events,
      );
      appended.push(
        ...(await store.append('b', [{ type: 'B1', data: 1 }], { expectedVersion: 'no_stream' }))
          .events,
      );
      appended.push(
        ...(await store.append('a', [{ type: 'A3', data: 3 }], { expectedVersion: 2 })).events,
      );
      appended.push(
        ...(
          await store.append(
            'c',
            [
              { type: 'C1', data: 1 },
              { type: 'C2', data: 2 },
              { type: 'C3', data: 3 },
            ],
            { expectedVersion: 'no_stream' },
          )
        ).events,
      );

      const { pages, checkpoint } = await readEverything(store, appended.length, 3);

      assert.ok(pages.every((page) => page.length <= 3));
      assert.deepEqual(
        pages.flat().map((event) => event.eventId),
        appended.map((event) => event.eventId),
      );
      const last = appended.at(-1)!;
      assert.deepEqual(checkpoint, {
        transactionId: last.transactionId,
        globalPosition: last.globalPosition,
      });
      const beyond = await store.readAll({ after: checkpoint, limit: 10 });
      assert.deepEqual(beyond.events, []);
      assert.deepEqual(beyond.checkpoint, checkpoint);
    });

    it('continues with events appended after the previous read', async () => {
      const store = await freshStore();
      await store.append('a', [{ type: 'First', data: 1 }], { expectedVersion: 'no_stream' });
      const { checkpoint } = await readEverything(store, 1, 10);
      const later = await store.append('b', [{ type: 'Later', data: 2 }], {
        expectedVersion: 'no_stream',
      });

      let page = await store.readAll({ after: checkpoint, limit: 10 });
      await waitUntil(async () => {
        page = await store.readAll({ after: checkpoint, limit: 10 });
        return page.events.length > 0;
      }, 'the later event');
      assert.deepEqual(
        page.events.map((event) => event.eventId),
        later.events.map((event) => event.eventId),
      );
    });

    it('refuses a limit that is not a positive integer', async () => {
      const store = await freshStore();
      await assert.rejects(store.readAll({ after: START, limit: 0 }), RangeError);
    });

    it('passes over the named streams after a position: left out, the checkpoint past them', async () => {
      const store = await freshStore();
      assert.equal(await store.lastPosition(), 0n);
      const before = await store.append('account-1', [{ type: 'Opened', data: { n: 1 } }], {
        expectedVersion: 'no_stream',
      });
      const from = await store.lastPosition();
      assert.equal(from, before.events[0]?.globalPosition);
      const appended: RecordedEvent[] = [];
      for (const streamId of ['account-2', 'accounting-1', 'account-1', 'other-1', 'account-3'])
        appended.push(
          ...(
            await store.append(streamId, [{ type: 'E', data: { streamId } }], {
              expectedVersion: 'any',
            })
          ).events,
        );
      assert.equal(await store.lastPosition(), appended.at(-1)?.globalPosition);
      const passOver = { streamPrefix: 'account-', after: from };
      const read: RecordedEvent[] = [];
      let passedOver = 0;
      let checkpoint: Checkpoint = START;
      await waitUntil(async () => {
        const page = await store.readAll({ after: checkpoint, limit: 2, passOver });
        read.push(...page.events);
        passedOver += page.passedOver;
        checkpoint = page.checkpoint;
        return checkpoint.globalPosition === appended.at(-1)?.globalPosition;
      }, 'the checkpoint past the last event');
      // The event before the position is read whole; of those after it only the other streams'.
      assert.deepEqual(
        read.map((event) => [event.streamId, event.data]),
        [
          ['account-1', { n: 1 }],
          ['accounting-1', { streamId: 'accounting-1' }],
          ['other-1', { streamId: 'other-1' }],
        ],
      );
      assert.equal(passedOver, 3);
      const beyond = await store.readAll({ after: checkpoint, limit: 10, passOver });
      assert.deepEqual(beyond.events, []);
      assert.deepEqual(beyond.checkpoint, checkpoint);
      // Without passOver the same read returns every event.
      const whole = await store.readAll({ after: START, limit: 10 });
      assert.equal(whole.events.length, 6);
    });
  });

  describe('checkpoints', () => {
    it('starts at START, then returns what was saved last', async () => {
      const store = await freshStore();
      assert.deepEqual(await store.loadCheckpoint('projector'), START);

      await store.saveCheckpoint('projector', { transactionId: '1234', globalPosition: 77n });
      assert.deepEqual(await store.loadCheckpoint('projector'), {
        transactionId: '1234',
        globalPosition: 77n,
      });

      // Beyond Number.MAX_SAFE_INTEGER: positions must survive as bigint end to end.
      const large: Checkpoint = {
        transactionId: '9007199254740993',
        globalPosition: 9_007_199_254_740_993n,
      };
      await store.saveCheckpoint('projector', large);
      assert.deepEqual(await store.loadCheckpoint('projector'), large);
      assert.deepEqual(await store.loadCheckpoint('another'), START);
    });

    it('returns a copy of START that callers may not corrupt', async () => {
      const store = await freshStore();
      const loaded = await store.loadCheckpoint('x');
      loaded.globalPosition = 5n;
      assert.equal(START.globalPosition, 0n);
    });
  });

  describe('onAppend', () => {
    it('wakes the listener after an append commits, and not after it stops listening', async () => {
      const store = await freshStore();
      let wakeUps = 0;
      const stop = await store.onAppend(() => {
        wakeUps += 1;
      });
      await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream' });
      await waitUntil(() => wakeUps >= 1, 'the wake-up');

      await stop();
      const before = wakeUps;
      await store.append('s', [{ type: 'E', data: 2 }], { expectedVersion: 1 });
      await target.settleNotifications();
      assert.equal(wakeUps, before);
    });

    it("wakes only once the caller's transaction commits, and never for a rolled-back one", async () => {
      const store = await freshStore();
      let wakeUps = 0;
      const stop = await store.onAppend(() => {
        wakeUps += 1;
      });
      try {
        await store.sql.transaction(async (tx) => {
          await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream', tx });
          await target.settleNotifications();
          assert.equal(wakeUps, 0, 'woken before commit');
        });
        await waitUntil(() => wakeUps === 1, 'the wake-up after commit');

        await assert.rejects(
          store.sql.transaction(async (tx) => {
            await store.append('s', [{ type: 'E', data: 2 }], { expectedVersion: 1, tx });
            throw new Error('rolled back');
          }),
          /rolled back/,
        );
        await target.settleNotifications();
        assert.equal(wakeUps, 1, 'woken by a rolled-back append');
      } finally {
        await stop();
      }
    });

    it('does not wake listeners of another schema', async () => {
      const store = await freshStore();
      const other = await freshStore();
      let otherWakeUps = 0;
      const stop = await other.onAppend(() => {
        otherWakeUps += 1;
      });
      await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream' });
      await target.settleNotifications();
      assert.equal(otherWakeUps, 0);
      await stop();
    });
  });

  describe('migrate', () => {
    it('is idempotent and safe to run concurrently', async () => {
      const store = await freshStore();
      await store.append('s', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream' });
      const schema = `es_spec_${randomBytes(5).toString('hex')}`;
      schemas.push(schema);
      const fresh = () => new EventStore(target.client(), { schema });

      await Promise.all([fresh().migrate(), fresh().migrate(), fresh().migrate(), store.migrate()]);

      assert.equal(await store.streamVersion('s'), 1);
      await fresh().append('t', [{ type: 'E', data: 1 }], { expectedVersion: 'no_stream' });
      assert.equal(await fresh().streamVersion('t'), 1);
    });

    it('refuses schema names that are not plain lower-case identifiers', () => {
      for (const schema of [
        '',
        'Gateway',
        'gate-way',
        '1gateway',
        'x; DROP TABLE y',
        'a'.repeat(41),
      ]) {
        assert.throws(
          () => new EventStore(target.client(), { schema }),
          /Invalid event store schema name/,
        );
      }
    });
  });
}
