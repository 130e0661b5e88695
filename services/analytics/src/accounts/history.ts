import type { AccountHistoryResponse, UsageOutcome, VerificationFamily } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { usageOutcomeSql } from '../activity/failure-rule.js';

type HistoryEntry = AccountHistoryResponse['verifications'][number];

/** Where the next page starts: the last entry's time and id, opaque to callers. */
function encodeCursor(entry: HistoryEntry): string {
  return Buffer.from(`${entry.requestedAt}|${entry.verificationId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { requestedAt: string; id: string } | undefined {
  const [requestedAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (requestedAt === undefined || id === undefined) return undefined;
  if (Number.isNaN(Date.parse(requestedAt))) return undefined;
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return { requestedAt, id };
}

/**
 * The verifications asked against any IBAN the account has held, newest first: time, family,
 * outcome and the requesting participant; never the typed name.
 */
export async function accountHistory(
  sql: SqlExecutor,
  schema: string,
  query: {
    accountId: string;
    limit: number;
    after?: { requestedAt: string; id: string } | undefined;
    now: Date;
  },
): Promise<Omit<AccountHistoryResponse, 'accountId'>> {
  const { rows } = await sql.query<{
    verification_id: string;
    requested_at: string;
    family: VerificationFamily;
    outcome: UsageOutcome;
    participant: string | null;
  }>(
    `SELECT v.verification_id::text AS verification_id,
            to_char(v.requested_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS requested_at,
            v.family, ${usageOutcomeSql('$2::timestamptz')} AS outcome, v.participant
       FROM ${schema}.verifications v
      WHERE v.iban_hash IN (SELECT iban_hash FROM ${schema}.account_ibans WHERE account_id = $1
                            UNION SELECT iban_hash FROM ${schema}.accounts WHERE account_id = $1)
        AND v.requested_at IS NOT NULL
        AND ($3::timestamptz IS NULL OR (v.requested_at, v.verification_id) < ($3::timestamptz, $4::uuid))
      ORDER BY v.requested_at DESC, v.verification_id DESC
      LIMIT $5`,
    [
      query.accountId,
      query.now.toISOString(),
      query.after?.requestedAt ?? null,
      query.after?.id ?? null,
      query.limit + 1,
    ],
  );
  const verifications = rows.slice(0, query.limit).map((row) => ({
    verificationId: row.verification_id,
    requestedAt: row.requested_at,
    family: row.family,
    outcome: row.outcome,
    participant: row.participant,
  }));
  const last = verifications.at(-1);
  return {
    verifications,
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}
