import type { SqlExecutor } from './types.js';

/**
 * When PGlite's store takes a checkpoint, by the WAL written since the last one began (its redo point).
 * A checkpoint holds PGlite's one backend while it writes the dirty pages, so it waits for a moment
 * without single checks until the WAL reaches `anyTimeBytes`.
 */
export interface CheckpointPolicy {
  /** Taken at once past this, unless single checks are coming. */
  quietBytes: number;
  /** Taken past this whatever comes: the WAL's room on disk and the replay after a crash stay bounded. */
  anyTimeBytes: number;
}

/**
 * A quarter of PostgreSQL's `max_wal_size` (1 GiB), and the whole of it. A crash replays what was
 * written since the redo point: 1.2 GB of WAL took PGlite 3.3 s to replay (bench/RESULTS.md §5).
 */
export const CHECKPOINT_DEFAULTS: CheckpointPolicy = {
  quietBytes: 256 * 1024 * 1024,
  anyTimeBytes: 1024 * 1024 * 1024,
};

/** Whether a checkpoint is due: `checksComing` is whether single checks came in the last moment. */
export function checkpointDue(
  walBytes: number,
  checksComing: boolean,
  policy: CheckpointPolicy = CHECKPOINT_DEFAULTS,
): boolean {
  return walBytes >= policy.anyTimeBytes || (walBytes >= policy.quietBytes && !checksComing);
}

/** Bytes of WAL written since the last checkpoint's redo point. */
export async function walSinceCheckpoint(sql: SqlExecutor): Promise<number> {
  const { rows } = await sql.query<{ bytes: string }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS bytes FROM pg_control_checkpoint()`,
  );
  return Number(rows[0]?.bytes ?? 0);
}
