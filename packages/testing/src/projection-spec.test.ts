import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import { projectionSpec } from './projection-spec.js';

const opened: SqlClient[] = [];
const spec = projectionSpec<string>({
  migrate: async (sql) => {
    opened.push(sql);
    await sql.query(
      `CREATE TABLE labels (
         position serial, label text PRIMARY KEY, tx bigint NOT NULL DEFAULT txid_current()
       )`,
    );
  },
  project: async (tx, labels) => {
    for (const label of labels) await tx.query('INSERT INTO labels (label) VALUES ($1)', [label]);
  },
});
const labels = async (sql: SqlExecutor) =>
  (await sql.query<{ label: string }>('SELECT label FROM labels ORDER BY position')).rows;
const labelsByTransaction = async (sql: SqlExecutor) =>
  (
    await sql.query(
      `SELECT array_agg(label ORDER BY position) AS labels FROM labels
        GROUP BY tx ORDER BY min(position)`,
    )
  ).rows;
const lastOpened = (): SqlClient => {
  const sql = opened.at(-1);
  assert.ok(sql, 'no database was opened');
  return sql;
};
const isCode23505 = (error: unknown) =>
  !(error instanceof assert.AssertionError) && (error as { code?: unknown }).code === '23505';

describe('projection spec', () => {
  it('given events, when more events, then the query sees the given ones first', async () => {
    await spec
      .given(['a', 'b'])
      .when(['c'])
      .then(labels, [{ label: 'a' }, { label: 'b' }, { label: 'c' }]);
  });

  it('given events, when more events, then each list gets one transaction', async () => {
    await spec
      .given(['a', 'b'])
      .when(['c', 'd'])
      .then(labelsByTransaction, [{ labels: ['a', 'b'] }, { labels: ['c', 'd'] }]);
  });

  it('given a finished run, when another run starts, then its database is empty', async () => {
    await spec
      .given([])
      .when(['a'])
      .then(labels, [{ label: 'a' }]);
    await spec
      .given([])
      .when(['a'])
      .then(labels, [{ label: 'a' }]);
  });

  it('given a wrong result, when then runs, then it fails and closes the database', async () => {
    await assert.rejects(
      spec
        .given(['a'])
        .when(['b'])
        .then(labels, [{ label: 'b' }]),
      assert.AssertionError,
    );
    await assert.rejects(lastOpened().query('SELECT 1'), /closed/);
  });

  it('given a refused when event, when thenThrows matches its error, then it passes', async () => {
    await spec.given(['a']).when(['a']).thenThrows({ code: '23505' });
  });

  it('given accepted events, when thenThrows runs, then it fails and closes the db', async () => {
    await assert.rejects(
      spec.given(['a']).when(['b']).thenThrows({ code: '23505' }),
      assert.AssertionError,
    );
    await assert.rejects(lastOpened().query('SELECT 1'), /closed/);
  });

  it('given refused given events, when thenThrows runs, then their error fails it', async () => {
    await assert.rejects(
      spec.given(['a', 'a']).when(['b']).thenThrows({ code: '23505' }),
      isCode23505,
    );
  });
});
