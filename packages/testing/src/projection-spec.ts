import assert from 'node:assert/strict';
import { createPgliteClient, type SqlClient, type SqlExecutor } from '@vop/event-store';

export interface Projection<Event> {
  /** Creates the read model's tables in an empty database. */
  migrate: (sql: SqlClient) => Promise<void>;
  /** Applies the events in order; each call runs in one transaction. */
  project: (tx: SqlExecutor, events: readonly Event[]) => Promise<void>;
}

export interface ProjectionSpec<Event> {
  given(events: readonly Event[]): {
    when(events: readonly Event[]): ProjectionOutcome;
  };
}

export interface ProjectionOutcome {
  /** The query's result, read after both transactions committed, deep-equals `expected`. */
  then<Result>(
    query: (sql: SqlExecutor) => Promise<Result>,
    expected: NoInfer<Result>,
  ): Promise<void>;
  /** Projecting the `when` events is refused with an error matching `expected`. */
  thenThrows(expected: assert.AssertPredicate): Promise<void>;
}

/**
 * Given/when/then for a read-model projection over a real SQL database (after Emmett's projection
 * specifications): given events already projected, when these events are projected, then a query
 * returns the expected result, or projecting them is refused. Each run gets a fresh in-memory
 * PGlite database, closed afterwards; the given and the when events get one transaction each.
 */
export function projectionSpec<Event>(projection: Projection<Event>): ProjectionSpec<Event> {
  async function run(check: (sql: SqlClient, project: ProjectAll<Event>) => Promise<void>) {
    const sql = await createPgliteClient({});
    try {
      await projection.migrate(sql);
      await check(sql, (events) => sql.transaction((tx) => projection.project(tx, events)));
    } finally {
      await sql.close();
    }
  }

  return {
    given: (given) => ({
      when: (when) => ({
        then: (query, expected) =>
          run(async (sql, project) => {
            await project(given);
            await project(when);
            assert.deepStrictEqual(await query(sql), expected);
          }),
        thenThrows: (expected) =>
          run(async (_sql, project) => {
            await project(given);
            await assert.rejects(project(when), expected);
          }),
      }),
    }),
  };
}

type ProjectAll<Event> = (events: readonly Event[]) => Promise<void>;
