import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { handleCommand, type Decider } from '../command-handler.js';
import { ConcurrencyError } from '../concurrency-error.js';
import { EventStore } from '../event-store.js';
import type { SqlClient, SqlExecutor } from '../types.js';

/** A counter that may not pass its limit: the smallest decider with a rule that reads the state. */
type CounterEvent = { type: 'Added'; data: { by: number } };
type CounterCommand = { type: 'Add'; by: number } | { type: 'AddNothing' };

class OverLimitError extends Error {}

const LIMIT = 5;

const counter: Decider<CounterCommand, CounterEvent, { total: number }> = {
  decide: (command, state) => {
    if (command.type === 'AddNothing') return [];
    if (state.total + command.by > LIMIT) throw new OverLimitError();
    return [{ type: 'Added', data: { by: command.by } }];
  },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  initialState: () => ({ total: 0 }),
};

const add = (by: number): CounterCommand => ({ type: 'Add', by });
const added = (by: number): CounterEvent => ({ type: 'Added', data: { by } });

export interface CommandHandlerSpecTarget {
  /** The client under test; opened by the caller's before() hook. */
  client(): SqlClient;
}

/** handleCommand's behaviour; run once per client kind. */
export function commandHandlerSpec(target: CommandHandlerSpecTarget): void {
  const schemas: string[] = [];

  async function givenStream(
    ...events: CounterEvent[]
  ): Promise<{ store: EventStore; streamId: string }> {
    const schema = `ch_spec_${randomBytes(5).toString('hex')}`;
    schemas.push(schema);
    const store = new EventStore(target.client(), { schema });
    await store.migrate();
    const streamId = `counter-${randomBytes(4).toString('hex')}`;
    if (events.length > 0) await store.append(streamId, events, { expectedVersion: 'no_stream' });
    return { store, streamId };
  }

  const storedTypesAndData = async (store: EventStore, streamId: string) =>
    (await store.readStream(streamId)).map(({ type, data }) => ({ type, data }));

  after(async () => {
    for (const schema of schemas)
      await target.client().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  describe('handleCommand', () => {
    it('given past events, when a command, then decides on their state and appends at the version read', async () => {
      const { store, streamId } = await givenStream(added(2), added(1));

      const result = await handleCommand(store, streamId, counter, add(2), {
        metadata: { correlationId: 'c-1' },
      });

      assert.deepEqual(result.newEvents, [added(2)]);
      assert.deepEqual(result.newState, { total: 5 });
      assert.equal(result.nextExpectedVersion, 3);
      assert.deepEqual(await storedTypesAndData(store, streamId), [added(2), added(1), added(2)]);
      assert.deepEqual((await store.readStream(streamId))[2]?.metadata, { correlationId: 'c-1' });
    });

    it('given past events, when the decider refuses, then its error surfaces and nothing is appended', async () => {
      const { store, streamId } = await givenStream(added(4));

      await assert.rejects(handleCommand(store, streamId, counter, add(2)), OverLimitError);

      assert.deepEqual(await storedTypesAndData(store, streamId), [added(4)]);
    });

    it('when the decider decides no event, then nothing is appended and no hook runs', async () => {
      const { store, streamId } = await givenStream(added(1));
      let hooks = 0;

      const result = await handleCommand(
        store,
        streamId,
        counter,
        { type: 'AddNothing' },
        {
          beforeAppend: async (events) => {
            hooks += 1;
            return events;
          },
          afterAppend: async () => {
            hooks += 1;
          },
        },
      );

      assert.deepEqual(result, {
        newEvents: [],
        newState: { total: 1 },
        nextExpectedVersion: 1,
        recorded: [],
      });
      assert.equal(hooks, 0);
      assert.equal((await store.readStream(streamId)).length, 1);
    });

    it('given stored events, when parse is given, then the state folds the parsed events', async () => {
      const { store, streamId } = await givenStream(added(1));

      const result = await handleCommand(store, streamId, counter, add(1), {
        parse: (event) => added((event.data as { by: number }).by * 3),
      });

      assert.deepEqual(result.newState, { total: 4 });
    });

    it('when beforeAppend rewrites the events and metadata reads the stream, then those are stored', async () => {
      const { store, streamId } = await givenStream(added(1));

      const result = await handleCommand(store, streamId, counter, add(1), {
        beforeAppend: async (events) => events.map((event) => added(event.data.by * 2)),
        metadata: (stored) => ({ causationId: stored[0]?.eventId ?? 'none' }),
      });

      const stored = await store.readStream(streamId);
      assert.deepEqual(result.newEvents, [added(2)]);
      assert.deepEqual(result.newState, { total: 3 });
      assert.deepEqual(stored[1]?.data, { by: 2 });
      assert.equal(stored[1]?.metadata.causationId, stored[0]?.eventId);
      assert.deepEqual(result.recorded, [stored[1]]);
    });

    it('when afterAppend fails, then the append is rolled back with it', async () => {
      const { store, streamId } = await givenStream();

      await assert.rejects(
        handleCommand(store, streamId, counter, add(1), {
          afterAppend: async (result, tx) => {
            await tx.query('SELECT 1');
            throw new Error(`read model refused version ${result.nextExpectedVersion}`);
          },
        }),
        /read model refused version 1/,
      );

      assert.deepEqual(await store.readStream(streamId), []);
    });

    it("given the caller's transaction, when it rolls back, then the append is undone with it", async () => {
      const { store, streamId } = await givenStream(added(1));
      let inTransaction: number | undefined;

      await assert.rejects(
        store.sql.transaction(async (tx) => {
          const result = await handleCommand(store, streamId, counter, add(1), { tx });
          inTransaction = (await store.readStream(streamId, { tx })).length;
          assert.equal(result.nextExpectedVersion, 2);
          throw new Error('the caller rolls back');
        }),
        /the caller rolls back/,
      );

      assert.equal(inTransaction, 2);
      assert.deepEqual(await storedTypesAndData(store, streamId), [added(1)]);
    });

    it('given a writer that appends after the read, then ConcurrencyError surfaces and nothing is kept', async () => {
      const { store, streamId } = await givenStream(added(1));

      await assert.rejects(
        handleCommand(store, streamId, counter, add(1), {
          beforeAppend: async (events, tx) => {
            await appendMeanwhile(store, streamId, tx);
            return events;
          },
        }),
        (error) => error instanceof ConcurrencyError && error.actual === 2,
      );

      assert.deepEqual(await storedTypesAndData(store, streamId), [added(1)]);
    });

    it('given a writer that wins once, when attempts allow another, then the second run appends', async () => {
      const { store, streamId } = await givenStream(added(1));
      let runs = 0;

      const result = await handleCommand(store, streamId, counter, add(1), {
        attempts: 2,
        beforeAppend: async (events, tx) => {
          runs += 1;
          if (runs === 1) await appendMeanwhile(store, streamId, tx);
          return events;
        },
      });

      assert.equal(runs, 2);
      assert.equal(result.nextExpectedVersion, 2);
      assert.deepEqual(await storedTypesAndData(store, streamId), [added(1), added(1)]);
    });

    it('when an expected version is given, then it is checked instead of the version read', async () => {
      const { store, streamId } = await givenStream(added(1));

      await assert.rejects(
        handleCommand(store, streamId, counter, add(1), { expectedVersion: 'no_stream' }),
        ConcurrencyError,
      );
      const result = await handleCommand(store, streamId, counter, add(1), {
        expectedVersion: 'any',
      });

      assert.equal(result.nextExpectedVersion, 2);
    });
  });
}

/** Another writer's event, appended between the handler's read and its append. */
async function appendMeanwhile(
  store: EventStore,
  streamId: string,
  tx: SqlExecutor,
): Promise<void> {
  await store.append(streamId, [added(9)], { expectedVersion: 'any', tx });
}
