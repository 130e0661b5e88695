import { type AccountEvent, type AccountStatus, domesticAccountOf } from '@vop/contracts';
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
    // A GB IBAN's own sort code and account number, for rows written before domesticAccountOf.
    `UPDATE ${schema}.domestic_accounts SET sort_code = substr(iban, 9, 6), account_number = substr(iban, 15, 8)
      WHERE sort_code IS NULL AND NOT deleted AND iban ~ '^GB[0-9]{2}[A-Z]{4}[0-9]{14}$'`,
  ]);
}

/** Applies one account event; whether it changed the row (the same event again changes nothing). */
export async function projectDomesticAccount(
  tx: SqlExecutor,
  schema: string,
  event: AccountEvent,
): Promise<boolean> {
  if (event.type === 'AccountDeleted') {
    const { accountId, deletedAt } = event.data;
    // The IBAN goes with the account: nothing of an erased holder stays here.
    const { rowCount } = await tx.query(
      `INSERT INTO ${schema}.domestic_accounts AS d (account_id, status, deleted, as_of)
       VALUES ($1, 'closed', true, $2)
       ON CONFLICT (account_id) DO UPDATE
         SET deleted = true, iban = NULL, sort_code = NULL, account_number = NULL,
             as_of = GREATEST(d.as_of, excluded.as_of)
       WHERE NOT d.deleted OR d.as_of < excluded.as_of`,
      [accountId, deletedAt],
    );
    return rowCount > 0;
  }
  const { data } = event;
  const asOf = event.type === 'AccountOpened' ? event.data.createdAt : event.data.updatedAt;
  const { rowCount } = await tx.query(
    `INSERT INTO ${schema}.domestic_accounts AS d
            (account_id, sort_code, account_number, iban, status, as_of)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id) DO UPDATE
       SET sort_code = excluded.sort_code, account_number = excluded.account_number,
           iban = excluded.iban, status = excluded.status, as_of = excluded.as_of
     WHERE NOT d.deleted AND d.as_of <= excluded.as_of
       AND (d.sort_code, d.account_number, d.iban, d.status, d.as_of)
           IS DISTINCT FROM (excluded.sort_code, excluded.account_number, excluded.iban, excluded.status, excluded.as_of)`,
    [
      data.accountId,
      domesticAccountOf(data)?.sortCode ?? null,
      domesticAccountOf(data)?.accountNumber ?? null,
      data.iban,
      data.status,
      asOf,
    ],
  );
  return rowCount > 0;
}

/** When an event says the account was as it describes (its creation, change or deletion). */
const asOfOf = (event: AccountEvent): string =>
  event.type === 'AccountOpened'
    ? event.data.createdAt
    : event.type === 'AccountUpdated'
      ? event.data.updatedAt
      : event.data.deletedAt;

/**
 * Applies many events (an import's chunk, or a delivery of the account events) in at most two
 * statements, as projectDomesticAccount would one by one: each event carries its account's whole
 * state, so an account's newest event alone gives the row (the latest in the list among equals). A
 * row already as the event says is not written again. Returns the accounts whose rows changed.
 */
export async function projectDomesticAccounts(
  tx: SqlExecutor,
  schema: string,
  events: readonly AccountEvent[],
): Promise<Set<string>> {
  const last = new Map<string, AccountEvent>();
  for (const event of events) {
    const seen = last.get(event.data.accountId);
    if (seen === undefined || asOfOf(seen) <= asOfOf(event)) last.set(event.data.accountId, event);
  }
  const deleted = [...last.values()].flatMap((event) =>
    event.type === 'AccountDeleted'
      ? [{ account_id: event.data.accountId, as_of: event.data.deletedAt }]
      : [],
  );
  const written = [...last.values()].flatMap((event) =>
    event.type === 'AccountDeleted'
      ? []
      : [
          {
            account_id: event.data.accountId,
            sort_code: domesticAccountOf(event.data)?.sortCode ?? null,
            account_number: domesticAccountOf(event.data)?.accountNumber ?? null,
            iban: event.data.iban,
            status: event.data.status,
            as_of: asOfOf(event),
          },
        ],
  );
  const changed = new Set<string>();
  if (written.length > 0) {
    const { rows } = await tx.query<{ account_id: string }>(
      `INSERT INTO ${schema}.domestic_accounts AS d (account_id, sort_code, account_number, iban, status, as_of)
       SELECT account_id, sort_code, account_number, iban, status, as_of
         FROM jsonb_to_recordset($1::jsonb) AS w(account_id text, sort_code text, account_number text,
              iban text, status text, as_of timestamptz)
       ON CONFLICT (account_id) DO UPDATE
         SET sort_code = excluded.sort_code, account_number = excluded.account_number,
             iban = excluded.iban, status = excluded.status, as_of = excluded.as_of
       WHERE NOT d.deleted AND d.as_of <= excluded.as_of
         AND (d.sort_code, d.account_number, d.iban, d.status, d.as_of)
             IS DISTINCT FROM (excluded.sort_code, excluded.account_number, excluded.iban, excluded.status, excluded.as_of)
       RETURNING account_id`,
      [JSON.stringify(written)],
    );
    for (const row of rows) changed.add(row.account_id);
  }
  if (deleted.length > 0) {
    const { rows } = await tx.query<{ account_id: string }>(
      `INSERT INTO ${schema}.domestic_accounts AS d (account_id, status, deleted, as_of)
       SELECT account_id, 'closed', true, as_of
         FROM jsonb_to_recordset($1::jsonb) AS w(account_id text, as_of timestamptz)
       ON CONFLICT (account_id) DO UPDATE
         SET deleted = true, iban = NULL, sort_code = NULL, account_number = NULL,
             as_of = GREATEST(d.as_of, excluded.as_of)
       WHERE NOT d.deleted OR d.as_of < excluded.as_of
       RETURNING account_id`,
      [JSON.stringify(deleted)],
    );
    for (const row of rows) changed.add(row.account_id);
  }
  return changed;
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
