import type {
  VerificationCompletedData,
  VerificationFailedData,
  VerificationRequestedData,
} from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';
import { ibanPseudonym } from './iban-pseudonym.js';

/**
 * One row per verification, from its request and its end (two topics, either may come first). The
 * end is a completion or a failure; the first one read wins and a later one is ignored. The typed name stays as it travelled: encrypted under its day's key, so the retention job
 * that destroys the key makes it unreadable here too. No full IBAN: a pseudonym and the masked form.
 */
export async function migrateActivityReadModel(sql: SqlClient, schema: string): Promise<void> {
  await migrateSchema(sql, schema, [
    `CREATE TABLE IF NOT EXISTS ${schema}.verifications (
         verification_id uuid PRIMARY KEY,
         family text NOT NULL,
         participant text,
         batch_id text,
         iban_hash text,
         iban_masked text,
         typed_name text,
         requested_at timestamptz,
         outcome text,
         score double precision,
         completed_at timestamptz,
         response_ms integer
       )`,
    // Set when the verification ended without an outcome (VerificationFailed): it counts as failed.
    `ALTER TABLE ${schema}.verifications ADD COLUMN IF NOT EXISTS failure_reason text`,
    `CREATE INDEX IF NOT EXISTS verifications_requested_at ON ${schema}.verifications (requested_at)`,
    `CREATE INDEX IF NOT EXISTS verifications_iban ON ${schema}.verifications (iban_hash, requested_at)`,
  ]);
}

const RESPONSE_MS = `CASE WHEN requested_at IS NOT NULL AND completed_at IS NOT NULL
  THEN greatest(0, round(extract(epoch FROM completed_at - requested_at) * 1000))::integer END`;

export async function projectVerificationRequested(
  tx: SqlExecutor,
  schema: string,
  request: VerificationRequestedData,
): Promise<void> {
  const iban = ibanPseudonym(request.iban);
  const table = `${schema}.verifications`;
  await tx.query(
    `INSERT INTO ${table} AS v (verification_id, family, participant, batch_id, iban_hash, iban_masked, typed_name, requested_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (verification_id) DO UPDATE SET family = EXCLUDED.family,
       participant = EXCLUDED.participant, batch_id = EXCLUDED.batch_id, iban_hash = EXCLUDED.iban_hash,
       iban_masked = EXCLUDED.iban_masked, typed_name = EXCLUDED.typed_name, requested_at = EXCLUDED.requested_at`,
    [
      request.verificationId,
      request.family,
      request.participant ?? null,
      request.batch?.batchId ?? null,
      iban.hash,
      iban.masked,
      request.name ?? null,
      request.requestedAt,
    ],
  );
  await tx.query(`UPDATE ${table} SET response_ms = ${RESPONSE_MS} WHERE verification_id = $1`, [
    request.verificationId,
  ]);
}

export async function projectVerificationCompleted(
  tx: SqlExecutor,
  schema: string,
  completed: VerificationCompletedData,
): Promise<void> {
  const table = `${schema}.verifications`;
  await tx.query(
    `INSERT INTO ${table} AS v (verification_id, family, participant, batch_id, outcome, score, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (verification_id) DO UPDATE SET outcome = EXCLUDED.outcome, score = EXCLUDED.score,
       completed_at = EXCLUDED.completed_at,
       participant = coalesce(v.participant, EXCLUDED.participant),
       batch_id = coalesce(v.batch_id, EXCLUDED.batch_id)
     WHERE v.failure_reason IS NULL`,
    [
      completed.verificationId,
      completed.family,
      completed.participant ?? null,
      completed.batch?.batchId ?? null,
      completed.outcome,
      completed.score,
      completed.completedAt,
    ],
  );
  await tx.query(`UPDATE ${table} SET response_ms = ${RESPONSE_MS} WHERE verification_id = $1`, [
    completed.verificationId,
  ]);
}

/** A failure ends the verification without an outcome, unless it ended already. */
export async function projectVerificationFailed(
  tx: SqlExecutor,
  schema: string,
  failed: VerificationFailedData,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${schema}.verifications AS v (verification_id, family, participant, batch_id, failure_reason, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (verification_id) DO UPDATE SET failure_reason = EXCLUDED.failure_reason,
       completed_at = EXCLUDED.completed_at,
       participant = coalesce(v.participant, EXCLUDED.participant),
       batch_id = coalesce(v.batch_id, EXCLUDED.batch_id)
     WHERE v.outcome IS NULL AND v.failure_reason IS NULL`,
    [
      failed.verificationId,
      failed.family,
      failed.participant ?? null,
      failed.batch?.batchId ?? null,
      failed.reason,
      failed.failedAt,
    ],
  );
}
