import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AUTOVACUUM_DEFAULTS,
  LEAST_PAGES_OWED,
  type TableActivity,
  upkeepDue,
  upkeepStatement,
} from './pglite-upkeep.js';

const table = (name: string, activity: Partial<TableActivity> = {}): TableActivity => ({
  table: name,
  catalog: false,
  estimatedRows: 10_000,
  pages: 100,
  deadRows: 0,
  modifiedSinceAnalyze: 0,
  insertedSinceVacuum: 0,
  transactionIdAge: 1_000,
  ...activity,
});

describe('upkeepDue (autovacuum rule for PGlite)', () => {
  it('given quiet tables, then nothing is due', () => {
    assert.deepEqual(upkeepDue([table('a'), table('b', { deadRows: 2_050 })]), []);
  });

  it('given dead rows past 50 + 20 % of the rows, then a vacuum', () => {
    assert.deepEqual(upkeepDue([table('a', { deadRows: 2_051 })]), [
      { table: 'a', vacuum: true, analyze: false, reason: 'dead rows' },
    ]);
  });

  it('given rows inserted past 1,000 + 20 % since the last vacuum (an append-only table), then a vacuum', () => {
    assert.deepEqual(upkeepDue([table('events', { insertedSinceVacuum: 3_001 })]), [
      { table: 'events', vacuum: true, analyze: false, reason: 'inserted rows' },
    ]);
    assert.deepEqual(upkeepDue([table('events', { insertedSinceVacuum: 3_000 })]), []);
  });

  it('given rows changed past 50 + 10 % since the last analyse, then an analyse alone', () => {
    assert.deepEqual(upkeepDue([table('a', { modifiedSinceAnalyze: 1_051 })]), [
      { table: 'a', vacuum: false, analyze: true, reason: 'modified rows' },
    ]);
    const [step] = upkeepDue([table('"s"."a"', { modifiedSinceAnalyze: 1_051 })]);
    assert.equal(upkeepStatement(step!), 'ANALYZE "s"."a"');
  });

  it('given dead rows and changed rows, then one vacuum that analyses too', () => {
    const [step] = upkeepDue([table('a', { deadRows: 5_000, modifiedSinceAnalyze: 5_000 })]);
    assert.deepEqual(step, { table: 'a', vacuum: true, analyze: true, reason: 'dead rows' });
    assert.equal(upkeepStatement(step!), 'VACUUM (ANALYZE) a');
  });

  it('given a table never vacuumed nor analysed (no row estimate) that changed, then its thresholds are the base ones', () => {
    assert.deepEqual(upkeepDue([table('new', { estimatedRows: -1, deadRows: 51 })]), [
      { table: 'new', vacuum: true, analyze: true, reason: 'dead rows' },
    ]);
  });

  it('given a table or catalog past the freeze age, then it is vacuumed first, whatever its size', () => {
    const due = upkeepDue([
      table('small', { pages: 1, deadRows: 5_000 }),
      table('pg_catalog.pg_class', { catalog: true, pages: 5_000, transactionIdAge: 200_000_001 }),
      table('big', { pages: 9_000, transactionIdAge: 200_000_001 }),
    ]);
    assert.deepEqual(
      due.map((step) => [step.table, step.reason]),
      [
        ['pg_catalog.pg_class', 'transaction id age'],
        ['big', 'transaction id age'],
        ['small', 'dead rows'],
      ],
    );
    // Frozen whole, so its age starts again from the rows written after.
    assert.deepEqual(due.map(upkeepStatement), [
      'VACUUM (FREEZE) pg_catalog.pg_class',
      'VACUUM (FREEZE) big',
      'VACUUM small',
    ]);
  });

  it('given a system catalog with changed rows, then nothing: only its age counts (its counts are not kept)', () => {
    const catalog = table('pg_catalog.pg_class', {
      catalog: true,
      deadRows: 9_999,
      modifiedSinceAnalyze: 9_999,
    });
    assert.deepEqual(upkeepDue([catalog]), []);
  });

  it('given tables due, then the smallest first', () => {
    const due = upkeepDue([
      table('big', { pages: 5_000, deadRows: 5_000 }),
      table('small', { pages: 2, deadRows: 5_000 }),
      table('middle', { pages: 300, deadRows: 5_000 }),
    ]);
    assert.deepEqual(
      due.map((step) => step.table),
      ['small', 'middle', 'big'],
    );
  });

  it('given tables owed a vacuum since the start (their counts lost), then those of at least 1 MiB are vacuumed once', () => {
    const owed = new Set(['big', 'small', 'unknown-since-start']);
    const due = upkeepDue(
      [
        table('big', { pages: LEAST_PAGES_OWED }),
        table('small', { pages: LEAST_PAGES_OWED - 1 }),
        table('vacuumed-already', { pages: 10_000 }),
        table('unknown-since-start', { pages: 500, estimatedRows: -1 }),
      ],
      AUTOVACUUM_DEFAULTS,
      (name) => owed.has(name),
    );
    assert.deepEqual(due, [
      { table: 'big', vacuum: true, analyze: false, reason: 'counts lost at start' },
      { table: 'unknown-since-start', vacuum: true, analyze: true, reason: 'counts lost at start' },
    ]);
  });
});
