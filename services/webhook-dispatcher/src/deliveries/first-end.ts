import type { SqlExecutor } from '@vop/event-store';

/**
 * Records the ends of these verifications (first in the list first) at `now` and returns the ids
 * whose end this is the first of: the topic's order, shared by every reader, decides which end
 * counts.
 */
export async function firstEndsOf(
  tx: SqlExecutor,
  schema: string,
  verificationIds: readonly string[],
  now: Date,
): Promise<Set<string>> {
  const unique = [...new Set(verificationIds)];
  if (unique.length === 0) return new Set();
  const { rows } = await tx.query<{ verification_id: string }>(
    `INSERT INTO ${schema}.ended_verifications (verification_id, ended_at)
     SELECT unnest($1::uuid[]), $2 ON CONFLICT DO NOTHING RETURNING verification_id`,
    [`{${unique.join(',')}}`, now.toISOString()],
  );
  return new Set(rows.map((row) => row.verification_id));
}

const PRUNED_PER_STATEMENT = 10_000;

/**
 * Forgets the ends recorded before `before`: past the retention horizon no second end of the same
 * verification can come (the latest is a deferred verification's failure, 20 minutes after it was
 * taken on), so the rule no longer needs them. Returns how many were forgotten.
 */
export async function pruneEndedVerifications(
  sql: SqlExecutor,
  schema: string,
  before: Date,
): Promise<number> {
  let pruned = 0;
  for (;;) {
    const { rowCount } = await sql.query(
      `DELETE FROM ${schema}.ended_verifications WHERE verification_id IN (
         SELECT verification_id FROM ${schema}.ended_verifications WHERE ended_at < $1 LIMIT $2)`,
      [before.toISOString(), PRUNED_PER_STATEMENT],
    );
    pruned += rowCount;
    if (rowCount < PRUNED_PER_STATEMENT) return pruned;
  }
}
