import type { AccountEvent, AccountStatus } from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';

/**
 * The batch service's own view of the bank's UK domestic accounts (sort code + account number → IBAN
 * and status), projected from `vop.account-events.v1`: form 1 entries are looked up here, never in the
 * gateway's schema. Account events are keyed by IBAN, so a change of IBAN may arrive before the
 * account's earlier events: a row keeps the newest state (`as_of`), an older event changes nothing.
 */
export async function migrateDomesticAccounts(sql: SqlClient, schema: string): Promise<void> {
  await migrateSchema(sql, schema, [
    `CREATE TABLE IF NOT EXISTS ${schema}.domestic_accounts (
         account_id text PRIMARY KEY,
         sort_code text,
         account_number text,
         iban text,
         status text NOT NULL,
         deleted boolean NOT NULL DEFAULT false,
         as_of timestamptz NOT NULL
       )`,
    `CREATE INDEX IF NOT EXISTS domestic_accounts_pair
       ON ${schema}.domestic_accounts (sort_code, account_number) WHERE NOT deleted`,
  ]);
}

export async function projectDomesticAccount(
  tx: SqlExecutor,
  schema: string,
  event: AccountEvent,
): Promise<void> {
  if (event.type === 'AccountDeleted') {
    const { accountId, deletedAt } = event.data;
    // The IBAN goes with the account: nothing of an erased holder stays here.
    await tx.query(
      `INSERT INTO ${schema}.domestic_accounts AS d (account_id, status, deleted, as_of)
       VALUES ($1, 'closed', true, $2)
       ON CONFLICT (account_id) DO UPDATE
         SET deleted = true, iban = NULL, sort_code = NULL, account_number = NULL,
             as_of = GREATEST(d.as_of, excluded.as_of)`,
      [accountId, deletedAt],
    );
    return;
  }
  const { data } = event;
  const asOf = event.type === 'AccountOpened' ? event.data.createdAt : event.data.updatedAt;
  await tx.query(
    `INSERT INTO ${schema}.domestic_accounts AS d
            (account_id, sort_code, account_number, iban, status, as_of)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id) DO UPDATE
       SET sort_code = excluded.sort_code, account_number = excluded.account_number,
           iban = excluded.iban, status = excluded.status, as_of = excluded.as_of
     WHERE NOT d.deleted AND d.as_of <= excluded.as_of`,
    [
      data.accountId,
      data.domesticAccount?.sortCode ?? null,
      data.domesticAccount?.accountNumber ?? null,
      data.iban,
      data.status,
      asOf,
    ],
  );
}

export interface DomesticAccount {
  sortCode: string;
  accountNumber: string;
  iban: string;
  status: AccountStatus;
}

/** The live accounts among these pairs, in one query (a form 1 batch holds up to 10,000). */
export async function findDomesticAccounts(
  sql: SqlExecutor,
  schema: string,
  pairs: readonly { sortCode: string; accountNumber: string }[],
): Promise<DomesticAccount[]> {
  if (pairs.length === 0) return [];
  const { rows } = await sql.query<DomesticAccount>(
    `SELECT d.sort_code AS "sortCode", d.account_number AS "accountNumber", d.iban, d.status
       FROM ${schema}.domestic_accounts AS d
       JOIN (SELECT DISTINCT "sortCode", "accountNumber"
               FROM jsonb_to_recordset($1::jsonb) AS p("sortCode" text, "accountNumber" text)) AS p
         ON d.sort_code = p."sortCode" AND d.account_number = p."accountNumber"
      WHERE NOT d.deleted`,
    [JSON.stringify(pairs.map(({ sortCode, accountNumber }) => ({ sortCode, accountNumber })))],
  );
  return rows;
}
