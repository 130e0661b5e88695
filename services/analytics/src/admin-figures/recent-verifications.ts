import type { RecentVerificationsResponse, UsageOutcome } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { maskName } from '@vop/observability';
import type { FieldCipher } from '@vop/personal-data';
import { failedSql, usageOutcomeSql } from '../activity/failure-rule.js';

/**
 * The latest verifications for the admin, newest first. Names and IBANs are masked ("E**** M*********",
 * "DE89**************3000"): the admin sees enough to recognise a case, never the personal data. The
 * typed name is read through its day's key, so once the retention destroyed that key it is null.
 */
export async function recentVerifications(
  sql: SqlExecutor,
  schema: string,
  cipher: FieldCipher,
  query: { limit: number; failedOnly: boolean; now: Date },
): Promise<RecentVerificationsResponse> {
  const filter = query.failedOnly ? `AND ${failedSql('$1::timestamptz')}` : '';
  const { rows } = await sql.query<{
    id: string;
    typed_name: string | null;
    iban_masked: string | null;
    result: UsageOutcome;
    timestamp: string;
  }>(
    `SELECT v.verification_id::text AS id, v.typed_name, v.iban_masked,
            ${usageOutcomeSql('$1::timestamptz')} AS result,
            to_char(v.requested_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp
       FROM ${schema}.verifications v
      WHERE v.requested_at IS NOT NULL ${filter}
      ORDER BY v.requested_at DESC, v.verification_id DESC
      LIMIT $2`,
    [query.now.toISOString(), query.limit],
  );
  const counted = await sql.query<{ total: string }>(
    `SELECT count(*)::text AS total FROM ${schema}.verifications v
      WHERE v.requested_at IS NOT NULL ${filter}`,
    query.failedOnly ? [query.now.toISOString()] : [],
  );
  const names = await cipher.decryptMany(rows.map((row) => row.typed_name ?? ''));
  return {
    verifications: rows.map((row, index) => {
      const name = row.typed_name === null ? undefined : names[index];
      return {
        id: row.id,
        name: name === undefined || name === '' ? null : maskName(name),
        iban: row.iban_masked,
        result: row.result,
        timestamp: row.timestamp,
      };
    }),
    total: Number(counted.rows[0]?.total ?? 0),
  };
}
