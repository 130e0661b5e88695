import type {
  VerificationCompletedData,
  VerificationFailedData,
  VerificationRequestedData,
} from '@vop/contracts';
import { schemaMigration, type SqlExecutor } from '@vop/event-store';
import { responderFailureOf } from '../match-rates/responding-bank.js';
import { ibanPseudonym } from './iban-pseudonym.js';

/**
 * One row per verification, from its request and its end (two topics, either may come first). The
 * end is a completion or a failure; the first one read wins and a later one is ignored. The typed name stays as it travelled: encrypted under its day's key, so the retention job
 * that destroys the key makes it unreadable here too. No full IBAN: a pseudonym and the masked form.
 */
export const migrateActivityReadModel = schemaMigration((schema) => [
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
  // The payee's bank a check was sent to (`routedTo`); null when decided here, as every older row was.
  `ALTER TABLE ${schema}.verifications ADD COLUMN IF NOT EXISTS responding_bic text`,
  // The RESPONDER_* reason of a NOAP that bank could not answer (match-rates/responding-bank.ts).
  `ALTER TABLE ${schema}.verifications ADD COLUMN IF NOT EXISTS responder_failure text`,
  `CREATE INDEX IF NOT EXISTS verifications_requested_at ON ${schema}.verifications (requested_at)`,
  `CREATE INDEX IF NOT EXISTS verifications_iban ON ${schema}.verifications (iban_hash, requested_at)`,
]);

/** Response time once both ends are known; `requested` and `completed` name the two timestamps. */
function responseMs(requested: string, completed: string): string {
  return `CASE WHEN ${requested} IS NOT NULL AND ${completed} IS NOT NULL
    THEN greatest(0, round(extract(epoch FROM ${completed} - ${requested}) * 1000))::integer END`;
}

/** The last of each verification's items: one statement cannot update a row twice. */
function lastPerVerification<T extends { verificationId: string }>(items: readonly T[]): T[] {
  return [...new Map(items.map((item) => [item.verificationId, item])).values()];
}

/** Requests of a delivered batch in one statement (one row each, the response time when completed). */
export async function projectVerificationsRequested(
  tx: SqlExecutor,
  schema: string,
  requests: readonly VerificationRequestedData[],
): Promise<void> {
  if (requests.length === 0) return;
  const rows = lastPerVerification(requests).map((request) => {
    const iban = ibanPseudonym(request.iban);
    return {
      verification_id: request.verificationId,
      family: request.family,
      participant: request.participant ?? null,
      batch_id: request.batch?.batchId ?? null,
      iban_hash: iban.hash,
      iban_masked: iban.masked,
      typed_name: request.name ?? null,
      requested_at: request.requestedAt,
      responding_bic: request.routedTo?.bic ?? null,
    };
  });
  await tx.query(
    `INSERT INTO ${schema}.verifications AS v (verification_id, family, participant, batch_id, iban_hash, iban_masked, typed_name, requested_at, responding_bic)
     SELECT verification_id, family, participant, batch_id, iban_hash, iban_masked, typed_name, requested_at, responding_bic
       FROM jsonb_to_recordset($1::jsonb) AS r(verification_id uuid, family text, participant text,
            batch_id text, iban_hash text, iban_masked text, typed_name text, requested_at timestamptz,
            responding_bic text)
     ON CONFLICT (verification_id) DO UPDATE SET family = EXCLUDED.family,
       participant = EXCLUDED.participant, batch_id = EXCLUDED.batch_id, iban_hash = EXCLUDED.iban_hash,
       iban_masked = EXCLUDED.iban_masked, typed_name = EXCLUDED.typed_name, requested_at = EXCLUDED.requested_at,
       responding_bic = coalesce(v.responding_bic, EXCLUDED.responding_bic),
       response_ms = ${responseMs('EXCLUDED.requested_at', 'v.completed_at')}`,
    [JSON.stringify(rows)],
  );
}

/** Completions of a delivered batch in one statement (either end of a verification may come first). */
export async function projectVerificationsCompleted(
  tx: SqlExecutor,
  schema: string,
  completions: readonly VerificationCompletedData[],
): Promise<void> {
  if (completions.length === 0) return;
  const rows = lastPerVerification(completions).map((completed) => ({
    verification_id: completed.verificationId,
    family: completed.family,
    participant: completed.participant ?? null,
    batch_id: completed.batch?.batchId ?? null,
    outcome: completed.outcome,
    score: completed.score,
    completed_at: completed.completedAt,
    responding_bic: completed.routedTo?.bic ?? null,
    responder_failure: responderFailureOf(completed),
  }));
  await tx.query(
    `INSERT INTO ${schema}.verifications AS v (verification_id, family, participant, batch_id, outcome, score, completed_at, responding_bic, responder_failure)
     SELECT verification_id, family, participant, batch_id, outcome, score, completed_at, responding_bic, responder_failure
       FROM jsonb_to_recordset($1::jsonb) AS r(verification_id uuid, family text, participant text,
            batch_id text, outcome text, score double precision, completed_at timestamptz,
            responding_bic text, responder_failure text)
     ON CONFLICT (verification_id) DO UPDATE SET outcome = EXCLUDED.outcome, score = EXCLUDED.score,
       completed_at = EXCLUDED.completed_at,
       responding_bic = coalesce(EXCLUDED.responding_bic, v.responding_bic),
       responder_failure = EXCLUDED.responder_failure,
       participant = coalesce(v.participant, EXCLUDED.participant),
       batch_id = coalesce(v.batch_id, EXCLUDED.batch_id),
       response_ms = ${responseMs('v.requested_at', 'EXCLUDED.completed_at')}
     WHERE v.failure_reason IS NULL`,
    [JSON.stringify(rows)],
  );
}

/**
 * A failure ends the verification without an outcome, unless it ended already. Its time to fail is kept
 * as a request arriving after it would keep it: a row is the same in any order and with any repeat.
 */
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
       batch_id = coalesce(v.batch_id, EXCLUDED.batch_id),
       response_ms = ${responseMs('v.requested_at', 'EXCLUDED.completed_at')}
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
