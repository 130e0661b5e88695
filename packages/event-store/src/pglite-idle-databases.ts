import type { PGlite } from '@electric-sql/pglite';
import { openPglite } from './pglite-open.js';

/**
 * Half of autovacuum_freeze_max_age: a database other than the one in use (template0, template1) is
 * frozen when a data folder is opened once it is this old. Past it a restart is the remedy the
 * VopStoreTransactionIdAgeHigh alert names (docs/operations.md), long before it.
 */
export const IDLE_DATABASE_FREEZE_AGE = 100_000_000;

/**
 * Freezes the databases of the data folder other than the one `db` uses that are older than
 * `olderThan` transactions. They hold no rows that change, but a database's age grows with every
 * transaction of the cluster, and PostgreSQL stops writing near 2^31 after the oldest one's: a server's
 * autovacuum freezes them, PGlite runs none, and it opens one database at a time. So `db` is closed,
 * each one opened and frozen in turn (template0 allowed connections for that while, as autovacuum may
 * enter it), and the caller opens its own again. Returns those frozen; with none, `db` stays open.
 */
export async function freezeIdleDatabases(
  db: PGlite,
  dataDir: string,
  olderThan = IDLE_DATABASE_FREEZE_AGE,
): Promise<string[]> {
  // For template0, which allows no connections: the statements that open it for the while and close it.
  const { rows } = await db.query<{ name: string; home: string; open?: string; close?: string }>(
    `SELECT datname AS name, current_database() AS home,
            CASE WHEN NOT datallowconn THEN format('ALTER DATABASE %I ALLOW_CONNECTIONS true', datname) END AS open,
            CASE WHEN NOT datallowconn THEN format('ALTER DATABASE %I ALLOW_CONNECTIONS false', datname) END AS close
       FROM pg_database WHERE datname <> current_database() AND age(datfrozenxid) > $1 ORDER BY datname`,
    [olderThan],
  );
  if (rows.length === 0) return [];
  for (const { open } of rows) if (open) await db.exec(open);
  await db.close();
  try {
    for (const { name } of rows) {
      const idle = await openPglite({ dataDir, database: name });
      try {
        await idle.exec('VACUUM (FREEZE)');
      } finally {
        await idle.close();
      }
    }
  } finally {
    const again = await openPglite({ dataDir, database: rows[0]!.home });
    try {
      for (const { close } of rows) if (close) await again.exec(close);
    } finally {
      await again.close();
    }
  }
  return rows.map((row) => row.name);
}
