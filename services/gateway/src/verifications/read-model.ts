import type {
  RoutedTo,
  VerificationCompletedData,
  VerificationFailedData,
  VerificationFailureReason,
  VerificationFamily,
  VerificationRequestedData,
  VerificationEnd,
} from '@vop/contracts';
import {
  migrateSchema,
  type SqlClient,
  type SqlExecutor,
  type WriteStatement,
} from '@vop/event-store';

export interface VerificationRow {
  id: string;
  family: VerificationFamily;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  outcome: VerificationCompletedData['outcome'] | null;
  score: number | null;
  matched_name: string | null;
  reasons: string[] | null;
  id_match: VerificationCompletedData['idMatch'] | null;
  routed_to?: RoutedTo | null;
  requested_at: Date | string;
  completed_at: Date | string | null;
  /** The participant that asked; only it (or the admin) reads the result. */
  participant: string | null;
  failure_reason: VerificationFailureReason | null;
  failed_at: Date | string | null;
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
    `ALTER TABLE ${schema}.verifications ADD COLUMN IF NOT EXISTS failure_reason text`,
    `ALTER TABLE ${schema}.verifications ADD COLUMN IF NOT EXISTS failed_at timestamptz`,
    // The payee's bank a check was sent to (the requesting side); null: decided here.
    `ALTER TABLE ${schema}.verifications ADD COLUMN IF NOT EXISTS routed_to jsonb`,
    // The failure sweeper's candidates: few rows, since a verification leaves PENDING within seconds.
    `CREATE INDEX IF NOT EXISTS verifications_pending ON ${schema}.verifications (requested_at)
       WHERE status = 'PENDING'`,
  ]);
}

/**
 * Inline, written with the VerificationRequested events (the recorder's one statement): the id is known
 * before any answer.
 */
export function pendingVerificationsWrite(
  schema: string,
  requests: VerificationRequestedData[],
): WriteStatement {
  const rows = requests.map(({ verificationId, family, requestedAt, participant }) => ({
    id: verificationId,
    family,
    requestedAt,
    participant: participant ?? null,
  }));
  return {
    text: `INSERT INTO ${schema}.verifications (id, family, status, requested_at, participant)
     SELECT id, family, 'PENDING', "requestedAt", participant
       FROM jsonb_to_recordset($1::jsonb)
         AS r(id uuid, family text, "requestedAt" timestamptz, participant text)
     RETURNING 1`,
    params: [JSON.stringify(rows)],
  };
}

/**
 * Inline, when the recording process decided the requests itself (embedded): each row is written with
 * its end, or PENDING if it has none, in one statement instead of an insert and an update.
 */
export function verificationsWrite(
  schema: string,
  requests: VerificationRequestedData[],
  ends: readonly VerificationEnd[],
): WriteStatement {
  const endById = new Map(firstEnds(ends).map((end) => [end.data.verificationId, end]));
  const rows = requests.map(({ verificationId, family, requestedAt, participant, routedTo }) => {
    const end = endById.get(verificationId);
    const completed = end?.type === 'VerificationCompleted' ? end.data : undefined;
    const failed = end?.type === 'VerificationFailed' ? end.data : undefined;
    return {
      id: verificationId,
      family,
      status: completed ? 'COMPLETED' : failed ? 'FAILED' : 'PENDING',
      requestedAt,
      participant: participant ?? null,
      outcome: completed?.outcome ?? null,
      score: completed?.score ?? null,
      matchedName: completed?.matchedName ?? null,
      reasons: completed?.reasons ?? null,
      idMatch: completed?.idMatch ?? null,
      completedAt: completed?.completedAt ?? null,
      failureReason: failed?.reason ?? null,
      failedAt: failed?.failedAt ?? null,
      routedTo: completed?.routedTo ?? routedTo ?? null,
    };
  });
  return {
    text: `INSERT INTO ${schema}.verifications (id, family, status, requested_at, participant, outcome, score,
            matched_name, reasons, id_match, completed_at, failure_reason, failed_at, routed_to)
     SELECT id, family, status, "requestedAt", participant, outcome, score, "matchedName", reasons,
            "idMatch", "completedAt", "failureReason", "failedAt", "routedTo"
       FROM jsonb_to_recordset($1::jsonb)
         AS r(id uuid, family text, status text, "requestedAt" timestamptz, participant text,
              outcome text, score double precision, "matchedName" text, reasons jsonb, "idMatch" text,
              "completedAt" timestamptz, "failureReason" text, "failedAt" timestamptz, "routedTo" jsonb)
     RETURNING 1`,
    params: [JSON.stringify(rows)],
  };
}

/**
 * The ends read from the completions topic, in topic order: the first end of a verification wins
 * (a completion or a failure), a later one is ignored. One statement per kind of end.
 */
export async function recordVerificationEnds(
  tx: SqlExecutor,
  schema: string,
  ends: readonly VerificationEnd[],
): Promise<void> {
  const firsts = firstEnds(ends);
  const completions = firsts.flatMap((end) =>
    end.type === 'VerificationCompleted' ? [end.data] : [],
  );
  const failures = firsts.flatMap((end) => (end.type === 'VerificationFailed' ? [end.data] : []));
  await recordCompletedVerifications(tx, schema, completions);
  await recordFailedVerifications(tx, schema, failures);
}

/** The first end of each verification in a batch, in order. */
export function firstEnds(ends: readonly VerificationEnd[]): VerificationEnd[] {
  const seen = new Set<string>();
  return ends.filter((end) => {
    if (seen.has(end.data.verificationId)) return false;
    seen.add(end.data.verificationId);
    return true;
  });
}

/** One statement for a batch of completions; a verification that ended already keeps its end. */
export async function recordCompletedVerifications(
  tx: SqlExecutor,
  schema: string,
  completions: VerificationCompletedData[],
): Promise<void> {
  if (completions.length === 0) return;
  await tx.query(
    `UPDATE ${schema}.verifications AS v
        SET status = 'COMPLETED', outcome = c.outcome, score = c.score, matched_name = c."matchedName", reasons = c.reasons,
            id_match = c."idMatch", completed_at = c."completedAt",
            routed_to = COALESCE(c."routedTo", v.routed_to)
       FROM jsonb_to_recordset($1::jsonb) AS c("verificationId" uuid, outcome text, score double precision, "matchedName" text,
            reasons jsonb, "idMatch" text, "completedAt" timestamptz, "routedTo" jsonb)
      WHERE v.id = c."verificationId" AND v.id = ANY($2::uuid[]) AND v.status = 'PENDING'`,
    // The array lets the planner look the rows up by primary key instead of scanning the table.
    [JSON.stringify(completions), idArray(completions)],
  );
}

/** One statement for a batch of failures; a verification that ended already keeps its end. */
export async function recordFailedVerifications(
  tx: SqlExecutor,
  schema: string,
  failures: VerificationFailedData[],
): Promise<void> {
  if (failures.length === 0) return;
  await tx.query(
    `UPDATE ${schema}.verifications AS v
        SET status = 'FAILED', failure_reason = f.reason, failed_at = f."failedAt"
       FROM jsonb_to_recordset($1::jsonb) AS f("verificationId" uuid, reason text, "failedAt" timestamptz)
      WHERE v.id = f."verificationId" AND v.id = ANY($2::uuid[]) AND v.status = 'PENDING'`,
    [JSON.stringify(failures), idArray(failures)],
  );
}

const idArray = (ends: readonly { verificationId: string }[]): string =>
  `{${ends.map((end) => end.verificationId).join(',')}}`;

const VERIFICATION_COLUMNS =
  'id, family, status, outcome, score, matched_name, reasons, id_match, requested_at, completed_at, participant, failure_reason, failed_at, routed_to';

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

/** The ended ones (completed or failed) among these verifications, by primary key. */
export async function findEndedVerifications(
  sql: SqlExecutor,
  schema: string,
  ids: string[],
): Promise<VerificationEnd[]> {
  const { rows } = await sql.query<VerificationRow>(
    `SELECT ${VERIFICATION_COLUMNS} FROM ${schema}.verifications WHERE id = ANY($1::uuid[]) AND status <> 'PENDING'`,
    [`{${ids.join(',')}}`],
  );
  return rows.map(endOf).filter((end): end is VerificationEnd => end !== undefined);
}

/** The end a row records, if it ended. */
export function endOf(row: VerificationRow): VerificationEnd | undefined {
  const completed = completedDataOf(row);
  if (completed) return { type: 'VerificationCompleted', data: completed };
  const failed = failedDataOf(row);
  return failed && { type: 'VerificationFailed', data: failed };
}

export function failedDataOf(row: VerificationRow): VerificationFailedData | undefined {
  if (row.status !== 'FAILED' || row.failure_reason === null) return undefined;
  return {
    verificationId: row.id,
    family: row.family,
    reason: row.failure_reason,
    ...(row.participant !== null && { participant: row.participant }),
    failedAt: new Date(row.failed_at ?? Date.now()).toISOString(),
  };
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
    ...(row.routed_to !== null && row.routed_to !== undefined && { routedTo: row.routed_to }),
    completedAt: new Date(row.completed_at ?? Date.now()).toISOString(),
  };
}
