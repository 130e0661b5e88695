import type { SqlClient } from './types.js';

/**
 * One write of a statement that writes several tables at once: a single INSERT, UPDATE or DELETE with a
 * RETURNING clause (its rows are counted) and its own parameters numbered from $1.
 */
export interface WriteStatement {
  text: string;
  params: readonly unknown[];
  /** A channel woken (SqlClient.notify) when this write touched rows. */
  notify?: string;
}

/**
 * Runs the writes as ONE statement, each a data-modifying CTE: all of them or none, without BEGIN and
 * COMMIT, in one round trip (a round of single checks, packages/verifications/src/recorder.ts: on
 * PostgreSQL one statement instead of five; on PGlite's thread nothing waits for the caller between
 * them). The writes share one snapshot, so none sees another's rows: they must not depend on each
 * other. Returns the rows each write touched.
 */
export async function writeTogether(
  sql: SqlClient,
  writes: readonly WriteStatement[],
): Promise<number[]> {
  if (writes.length === 0) return [];
  const params: unknown[] = [];
  const ctes = writes.map((write, index) => {
    const offset = params.length;
    params.push(...write.params);
    // Parameters are renumbered after the writes before this one.
    const text = write.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    return `w${index} AS (${text})`;
  });
  const counts = writes.map((_, index) => `(SELECT count(*) FROM w${index})::integer AS c${index}`);
  // PostgreSQL: the wake-up is sent with the statement's commit. PGlite's is in-process (below).
  const notifies =
    sql.kind === 'postgres'
      ? writes.flatMap((write, index) => {
          if (write.notify === undefined) return [];
          params.push(write.notify);
          return [
            `(SELECT count(*) FROM (SELECT pg_notify($${params.length}, '') FROM w${index} LIMIT 1) AS n)::integer AS n${index}`,
          ];
        })
      : [];
  const { rows } = await sql.query<Record<string, number>>(
    `WITH ${ctes.join(', ')} SELECT ${[...counts, ...notifies].join(', ')}`,
    params,
  );
  const row = rows[0] ?? {};
  const touched = writes.map((_, index) => Number(row[`c${index}`] ?? 0));
  if (sql.kind === 'pglite') {
    const channels = new Set(
      writes.flatMap((write, index) =>
        write.notify !== undefined && touched[index]! > 0 ? [write.notify] : [],
      ),
    );
    for (const channel of channels) await sql.notify(channel);
  }
  return touched;
}
