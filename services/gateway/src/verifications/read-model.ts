import type { VerificationCompletedData, VerificationFamily } from '@vop/contracts';
import type { SqlClient, SqlExecutor } from '@vop/event-store';

export interface VerificationRow {
  id: string;
  family: VerificationFamily;
  status: 'PENDING' | 'COMPLETED';
  outcome: VerificationCompletedData['outcome'] | null;
  score: number | null;
  matched_name: string | null;
  reasons: string[] | null;
  id_match: VerificationCompletedData['idMatch'] | null;
  requested_at: Date | string;
  completed_at: Date | string | null;
}

export async function migrateVerificationsReadModel(sql: SqlClient, schema: string): Promise<void> {
  await sql.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await sql.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.verifications (
       id uuid PRIMARY KEY,
       family text NOT NULL,
       status text NOT NULL,
       outcome text,
       score double precision,
       matched_name text,
       reasons jsonb,
       id_match text,
       requested_at timestamptz NOT NULL,
       completed_at timestamptz
     )`,
  );
}

/** Inline, in the transaction that appends VerificationRequested: the id is known before any answer. */
export async function insertPendingVerification(
  tx: SqlExecutor,
  schema: string,
  row: { id: string; family: VerificationFamily; requestedAt: string },
): Promise<void> {
  await tx.query(`INSERT INTO ${schema}.verifications (id, family, status, requested_at) VALUES ($1, $2, 'PENDING', $3)`, [
    row.id,
    row.family,
    row.requestedAt,
  ]);
}

export async function recordCompletedVerification(tx: SqlExecutor, schema: string, completed: VerificationCompletedData): Promise<void> {
  await tx.query(
    `UPDATE ${schema}.verifications
        SET status = 'COMPLETED', outcome = $2, score = $3, matched_name = $4, reasons = $5, id_match = $6, completed_at = $7
      WHERE id = $1`,
    [
      completed.verificationId,
      completed.outcome,
      completed.score,
      completed.matchedName ?? null,
      JSON.stringify(completed.reasons),
      completed.idMatch ?? null,
      completed.completedAt,
    ],
  );
}

export async function findVerification(sql: SqlExecutor, schema: string, id: string): Promise<VerificationRow | undefined> {
  const { rows } = await sql.query<VerificationRow>(
    `SELECT id, family, status, outcome, score, matched_name, reasons, id_match, requested_at, completed_at
       FROM ${schema}.verifications WHERE id = $1`,
    [id],
  );
  return rows[0];
}

export function completedDataOf(row: VerificationRow): VerificationCompletedData | undefined {
  if (row.status !== 'COMPLETED' || row.outcome === null) return undefined;
  return {
    verificationId: row.id,
    family: row.family,
    outcome: row.outcome,
    score: row.score ?? 0,
    ...(row.matched_name !== null && { matchedName: row.matched_name }),
    reasons: row.reasons ?? [],
    ...(row.id_match !== null && { idMatch: row.id_match }),
    completedAt: new Date(row.completed_at ?? Date.now()).toISOString(),
  };
}
