import { type AccountEvent, type AccountStatus, domesticAccountOf } from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';

/**
 * The batch service's own view of the bank's UK domestic accounts (sort code + account number → IBAN
 * and status), projected from `vop.account-events.v1`: form 1 entries are looked up here, never in the
 * gateway's schema. Account events are keyed by IBAN, so a change of IBAN may arrive before the
 * account's earlier events: a row keeps the newest state (`as_of`), an older event changes nothing.
 * An account that never had a pair gets no row (see `rowNeeded`): most of a euro bank's accounts.
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
  return (await projectDomesticAccounts(tx, schema, [event])).size > 0;
}

/**
 * Whether an event makes its account a row even when it has none. A row is what orders an account's
 * events (`as_of`), and only an event with a pair can leave a wrong one, when it arrives after a newer
 * event that took the pair away. It can only arrive after it under another IBAN (events are keyed by
 * IBAN, one partition each, in order), so the events that make rows are those with a pair and the
 * changes of IBAN: any older event then finds a newer row and changes nothing. An account opened
 * without a pair, or changed without one under the same IBAN, has every older event already behind
 * it: no row is needed to order them, and a row it has is followed (updated), not made.
 */
function rowNeeded(event: AccountEvent): boolean {
  if (event.type === 'AccountDeleted') return false;
  if (domesticAccountOf(event.data) !== undefined) return true;
  return event.type === 'AccountUpdated' && event.data.iban !== event.data.previousIban;
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
 * statements (rows written, deletions), as one by one: each event carries its account's
 * whole state, so an account's newest event alone gives the row (the latest in the list among equals),
 * made if any of its events needs one (`rowNeeded`). A row already as the event says is not written
 * again; an account opened without a pair costs no statement. Returns the accounts whose rows changed.
 */
export async function projectDomesticAccounts(
  tx: SqlExecutor,
  schema: string,
  events: readonly AccountEvent[],
): Promise<Set<string>> {
  const last = new Map<string, AccountEvent>();
  const needRow = new Set<string>();
  for (const event of events) {
    const { accountId } = event.data;
    const seen = last.get(accountId);
    if (seen === undefined || asOfOf(seen) <= asOfOf(event)) last.set(accountId, event);
    if (rowNeeded(event)) needRow.add(accountId);
  }
  const deleted = [...last.values()].flatMap((event) =>
    event.type === 'AccountDeleted'
      ? [{ account_id: event.data.accountId, as_of: event.data.deletedAt }]
      : [],
  );
  /** `made`: the row is made when missing; otherwise only a row the account has follows the event. */
  const rowOf = (event: Exclude<AccountEvent, { type: 'AccountDeleted' }>, made: boolean) => {
    const pair = domesticAccountOf(event.data);
    return {
      account_id: event.data.accountId,
      sort_code: pair?.sortCode ?? null,
      account_number: pair?.accountNumber ?? null,
      iban: event.data.iban,
      status: event.data.status,
      as_of: asOfOf(event),
      made,
    };
  };
  const written: ReturnType<typeof rowOf>[] = [];
  for (const event of last.values()) {
    if (event.type === 'AccountDeleted') continue;
    const made = needRow.has(event.data.accountId);
    // An opening without a pair has nothing to follow: no row can be older than it.
    if (made || event.type === 'AccountUpdated') written.push(rowOf(event, made));
  }
  const changed = new Set<string>();
  if (written.length > 0) {
    const { rows } = await tx.query<{ account_id: string }>(
      `INSERT INTO ${schema}.domestic_accounts AS d (account_id, sort_code, account_number, iban, status, as_of)
       SELECT account_id, sort_code, account_number, iban, status, as_of
         FROM jsonb_to_recordset($1::jsonb) AS w(account_id text, sort_code text, account_number text,
              iban text, status text, as_of timestamptz, made boolean)
        WHERE w.made OR EXISTS (SELECT 1 FROM ${schema}.domestic_accounts AS e WHERE e.account_id = w.account_id)
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
