import { PGlite } from '@electric-sql/pglite';

/**
 * PGlite's start parameters, and one of ours. PGlite starts PostgreSQL with fsync off (`-F` among its
 * defaults): each commit's WAL is written to the operating system before the commit returns, so a
 * killed process loses nothing, but a power cut or a kernel crash may. A full page image in the WAL
 * guards only against a page half written at such a crash, which fsync off gives up already; and after
 * every checkpoint (`services/embedded/src/store-checkpoints.ts`) it copied each page first touched
 * into the WAL again: a third more WAL for rows inserted into random-key indexes (bench/RESULTS.md §5).
 */
export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  '-c',
  'full_page_writes=off',
];

/** Opens PGlite, in memory or on a data folder, with `PGLITE_START_PARAMS`. */
export function openPglite(options: { dataDir?: string; database?: string }): Promise<PGlite> {
  return PGlite.create({ ...options, startParams: [...PGLITE_START_PARAMS] });
}
