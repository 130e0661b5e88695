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
  const params: unknown[] = writes.flatMap((write) => write.params);
  // PostgreSQL: the wake-up is sent with the statement's commit. PGlite's is in-process (below).
  const notifying = sql.kind === 'postgres';
  if (notifying)
    for (const write of writes) if (write.notify !== undefined) params.push(write.notify);
  const { rows } = await sql.query<Record<string, number>>(combinedText(writes, notifying), params);
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

/**
 * The write as a statement that answers only how many rows it touched (`written`), where its caller
 * needs no more: its RETURNING rows are not sent back (an import's new streams, a row per event: a
 * tenth of the statement in PGlite alone, bench/RESULTS.md §5, what the import's statements send back).
 */
export function countedWrite(write: WriteStatement): { text: string; params: readonly unknown[] } {
  return {
    text: `WITH touched AS (${write.text}) SELECT count(*)::integer AS written FROM touched`,
    params: write.params,
  };
}

/** A combined statement's text, for writes of these texts, numbers of parameters and wake-ups. */
interface Layout {
  texts: readonly string[];
  paramCounts: readonly number[];
  notifies: readonly boolean[];
  text: string;
}

/** Layouts built lately: the recorder's rounds repeat a few (bench/RESULTS.md §1). */
const layouts: Layout[] = [];
const KEPT_LAYOUTS = 16;

/**
 * The text of the statement for `writes`: the same for writes of the same texts, numbers of parameters
 * and wake-ups, so it is built once. Building it (a renumbering pass over each write's text, the CTEs
 * joined) for every round was ~4 % of what the gateway's request thread allocated per check. Keyed by
 * comparing the texts, not by a key string: one would be as long as the statement, built every round.
 */
function combinedText(writes: readonly WriteStatement[], notifying: boolean): string {
  const wakes = (write: WriteStatement) => notifying && write.notify !== undefined;
  const known = layouts.find(
    (layout) =>
      layout.texts.length === writes.length &&
      writes.every(
        (write, index) =>
          layout.texts[index] === write.text &&
          layout.paramCounts[index] === write.params.length &&
          layout.notifies[index] === wakes(write),
      ),
  );
  if (known !== undefined) return known.text;
  const notifies = writes.map(wakes);
  let offset = 0;
  const ctes = writes.map((write, index) => {
    // Parameters are renumbered after the writes before this one.
    const before = offset;
    offset += write.params.length;
    const text = write.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + before}`);
    return `w${index} AS (${text})`;
  });
  const counts = writes.map((_, index) => `(SELECT count(*) FROM w${index})::integer AS c${index}`);
  // The channels follow every write's parameters, in the writes' order.
  const wakeUps = notifies.flatMap((wakesHere, index) =>
    wakesHere
      ? [
          `(SELECT count(*) FROM (SELECT pg_notify($${++offset}, '') FROM w${index} LIMIT 1) AS n)::integer AS n${index}`,
        ]
      : [],
  );
  const text = `WITH ${ctes.join(', ')} SELECT ${[...counts, ...wakeUps].join(', ')}`;
  layouts.unshift({
    texts: writes.map((write) => write.text),
    paramCounts: writes.map((write) => write.params.length),
    notifies,
    text,
  });
  layouts.length = Math.min(layouts.length, KEPT_LAYOUTS);
  return text;
}
