import type {
  VerificationCompletedData,
  VerificationFamily,
  VerificationRequestedData,
} from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';

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
  /** The participant that asked; only it (or the admin) reads the result. */
  participant: string | null;
}

export async function migrateVerificationsReadModel(sql: SqlClient, schema: string): Promise<void> {
  await migrateSchema(sql, schema, [
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
    `ALTER TABLE ${schema}.verifications ADD COLUMN IF NOT EXISTS participant text`,
  ]);
}

/** Inline, in the transaction that appends VerificationRequested: the id is known before any answer. */
export async function insertPendingVerifications(
  tx: SqlExecutor,
  schema: string,
  requests: VerificationRequestedData[],
): Promise<void> {
  const rows = requests.map(({ verificationId, family, requestedAt, participant }) => ({
    id: verificationId,
    family,
    requestedAt,
    participant: participant ?? null,
  }));
  await tx.query(
    `INSERT INTO ${schema}.verifications (id, family, status, requested_at, participant)
     SELECT id, family, 'PENDING', "requestedAt", participant
       FROM jsonb_to_recordset($1::jsonb)
         AS r(id uuid, family text, "requestedAt" timestamptz, participant text)`,
    [JSON.stringify(rows)],
  );
}

/** One statement for a batch of completions. */
export async function recordCompletedVerifications(
  tx: SqlExecutor,
  schema: string,
  completions: VerificationCompletedData[],
): Promise<void> {
  if (completions.length === 0) return;
  await tx.query(
    `UPDATE ${schema}.verifications AS v
        SET status = 'COMPLETED', outcome = c.outcome, score = c.score, matched_name = c."matchedName", reasons = c.reasons,
            id_match = c."idMatch", completed_at = c."completedAt"
       FROM jsonb_to_recordset($1::jsonb) AS c("verificationId" uuid, outcome text, score double precision, "matchedName" text,
            reasons jsonb, "idMatch" text, "completedAt" timestamptz)
      WHERE v.id = c."verificationId" AND v.id = ANY($2::uuid[])`,
    // The array lets the planner look the rows up by primary key instead of scanning the table.
    [
      JSON.stringify(completions),
      `{${completions.map((completed) => completed.verificationId).join(',')}}`,
    ],
  );
}

const VERIFICATION_COLUMNS =
  'id, family, status, outcome, score, matched_name, reasons, id_match, requested_at, completed_at, participant';

export async function findVerification(
  sql: SqlExecutor,
  schema: string,
  id: string,
): Promise<VerificationRow | undefined> {
  const { rows } = await sql.query<VerificationRow>(
    `SELECT ${VERIFICATION_COLUMNS} FROM ${schema}.verifications WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** The completed ones among these verifications, by primary key. */
export async function findCompletedVerifications(
  sql: SqlExecutor,
  schema: string,
  ids: string[],
): Promise<VerificationCompletedData[]> {
  const { rows } = await sql.query<VerificationRow>(
    `SELECT ${VERIFICATION_COLUMNS} FROM ${schema}.verifications WHERE id = ANY($1::uuid[]) AND status = 'COMPLETED'`,
    [`{${ids.join(',')}}`],
  );
  return rows
    .map(completedDataOf)
    .filter((completed): completed is VerificationCompletedData => completed !== undefined);
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
