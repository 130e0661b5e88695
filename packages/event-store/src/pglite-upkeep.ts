import type { SqlExecutor } from './types.js';

/**
 * What PostgreSQL knows of one table: its size in pg_class (kept on disk) and its activity counts in
 * the statistics (PGlite keeps these only while the process runs: a restart starts them at zero).
 */
export interface TableActivity {
  /** Schema and name, each quoted as an identifier: ready to put in a statement. */
  table: string;
  /** A system catalog: vacuumed only for its transaction id age, its counts are not kept. */
  catalog: boolean;
  /** pg_class.reltuples: -1 until the table was first vacuumed or analysed. */
  estimatedRows: number;
  /**
   * Its heap's size in pages, from the file (pg_class.relpages, like reltuples, is 0 until the first
   * vacuum or analyse); a catalog's, pg_class.relpages (a file's size costs a look at the file).
   */
  pages: number;
  deadRows: number;
  modifiedSinceAnalyze: number;
  insertedSinceVacuum: number;
  /** age(relfrozenxid): transactions since the oldest unfrozen row's, what wraps around at 2^31. */
  transactionIdAge: number;
}

/**
 * When a table is due, as autovacuum decides it (its settings' names, PostgreSQL's defaults): a vacuum
 * once dead rows pass threshold + scale × rows, or rows inserted since the last vacuum pass theirs (so
 * an append-only table is frozen and marked all-visible in steps); an analyse once rows changed pass
 * theirs; a vacuum once the oldest unfrozen transaction id is older than freezeMaxAge.
 */
export interface UpkeepPolicy {
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  insertThreshold: number;
  insertScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
  freezeMaxAge: number;
}

/** autovacuum_vacuum_threshold and the rest, as PostgreSQL ships them. */
export const AUTOVACUUM_DEFAULTS: UpkeepPolicy = {
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  insertThreshold: 1000,
  insertScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
  freezeMaxAge: 200_000_000,
};

/**
 * 1 MiB of 8 KiB pages: a smaller table's dead rows of the run before cost little, and waiting for its
 * counts keeps a fresh deployment's first minutes idle (an idle deployment's cost, docs/performance.md).
 */
export const LEAST_PAGES_OWED = 128;

export type UpkeepReason =
  'transaction id age' | 'dead rows' | 'inserted rows' | 'modified rows' | 'counts lost at start';

export interface UpkeepStep {
  table: string;
  vacuum: boolean;
  analyze: boolean;
  reason: UpkeepReason;
}

/**
 * The tables due for upkeep, most urgent first: those near transaction id wraparound, then the rest
 * smallest first, so that one large table does not hold up many quick ones. `owedSinceStart`: the
 * tables not vacuumed since the process started, whose counts of the run before are gone; each of at
 * least LEAST_PAGES_OWED is vacuumed once (a table vacuumed before skips its all-visible pages, so this
 * costs what changed since), and analysed if it never was.
 */
export function upkeepDue(
  tables: readonly TableActivity[],
  policy: UpkeepPolicy = AUTOVACUUM_DEFAULTS,
  owedSinceStart: (table: string) => boolean = () => false,
): UpkeepStep[] {
  const steps: (UpkeepStep & { pages: number })[] = [];
  for (const activity of tables) {
    const rows = Math.max(activity.estimatedRows, 0);
    const old = activity.transactionIdAge > policy.freezeMaxAge;
    // A catalog's counts are not kept: only its age counts.
    const counted = !activity.catalog;
    const dead =
      counted && activity.deadRows > policy.vacuumThreshold + policy.vacuumScaleFactor * rows;
    const inserted =
      counted &&
      activity.insertedSinceVacuum > policy.insertThreshold + policy.insertScaleFactor * rows;
    const modified =
      counted &&
      activity.modifiedSinceAnalyze > policy.analyzeThreshold + policy.analyzeScaleFactor * rows;
    const owed = counted && activity.pages >= LEAST_PAGES_OWED && owedSinceStart(activity.table);
    const reasons: [UpkeepReason, boolean][] = [
      ['transaction id age', old],
      ['dead rows', dead],
      ['inserted rows', inserted],
      ['modified rows', modified],
      ['counts lost at start', owed],
    ];
    const reason = reasons.find(([, due]) => due)?.[0];
    if (reason === undefined) continue;
    const neverAnalysed = counted && activity.estimatedRows < 0 && activity.pages > 0;
    steps.push({
      table: activity.table,
      pages: activity.pages,
      vacuum: old || dead || inserted || owed,
      analyze: modified || neverAnalysed,
      reason,
    });
  }
  return steps
    .sort(
      (a, b) =>
        Number(b.reason === 'transaction id age') - Number(a.reason === 'transaction id age') ||
        a.pages - b.pages,
    )
    .map(({ pages: _pages, ...upkeep }) => upkeep);
}

/**
 * Every table of the database with its size and activity, system catalogs included (shared ones too:
 * their age counts in the database's), not TOAST tables (vacuumed with their own).
 */
export async function readTableActivity(sql: SqlExecutor): Promise<TableActivity[]> {
  const { rows } = await sql.query<{
    table: string;
    catalog: boolean;
    reltuples: number;
    pages: string;
    dead: string | null;
    modified: string | null;
    inserted: string | null;
    age: number;
  }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS table, n.nspname = 'pg_catalog' AS catalog,
            c.reltuples::float8 AS reltuples,
            CASE WHEN n.nspname = 'pg_catalog' THEN c.relpages
                 ELSE pg_relation_size(c.oid) / current_setting('block_size')::int END AS pages,
            s.n_dead_tup::text AS dead,
            s.n_mod_since_analyze::text AS modified, s.n_ins_since_vacuum::text AS inserted,
            age(c.relfrozenxid) AS age
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE c.relkind IN ('r', 'm') AND n.nspname <> 'information_schema'`,
  );
  return rows.map((row) => ({
    table: row.table,
    catalog: row.catalog,
    estimatedRows: Number(row.reltuples),
    pages: Number(row.pages),
    deadRows: Number(row.dead ?? 0),
    modifiedSinceAnalyze: Number(row.modified ?? 0),
    insertedSinceVacuum: Number(row.inserted ?? 0),
    transactionIdAge: Number(row.age),
  }));
}

/** The oldest database's age(datfrozenxid): what stops the cluster's writes near 2^31. */
export async function oldestTransactionIdAge(sql: SqlExecutor): Promise<number> {
  const { rows } = await sql.query<{ age: number }>(
    'SELECT max(age(datfrozenxid)) AS age FROM pg_database',
  );
  return Number(rows[0]?.age ?? 0);
}

/**
 * The statement for one step: VACUUM cannot run inside a transaction, so this is sent on its own. A
 * table past the freeze age is frozen whole: once in freezeMaxAge transactions, and its age is then
 * that of the rows written since, where a plain vacuum leaves rows younger than vacuum_freeze_min_age.
 */
export function upkeepStatement(upkeep: UpkeepStep): string {
  const options = [
    ...(upkeep.reason === 'transaction id age' ? ['FREEZE'] : []),
    ...(upkeep.analyze ? ['ANALYZE'] : []),
  ];
  if (!upkeep.vacuum) return `ANALYZE ${upkeep.table}`;
  return `VACUUM ${options.length > 0 ? `(${options.join(', ')}) ` : ''}${upkeep.table}`;
}
