import type { AccountEvent, AccountStatus } from '@vop/contracts';
import { schemaMigration, type SqlExecutor } from '@vop/event-store';
import { ibanPseudonym } from '../activity/iban-pseudonym.js';

/**
 * Account status for analysts: no names, the IBAN only as a pseudonym. Account events are keyed by
 * IBAN, so an IBAN change can reorder one account's events: a row keeps the stream revision it
 * reflects and older events are ignored; a deletion leaves a tombstone. Every IBAN an account has
 * held is kept, so its history follows it across an IBAN change: `account_ibans` holds both sides of
 * each change, and the row its current one. An account's first IBAN is its first change's previous one,
 * or, with none, the only one it ever had; so the IBANs of an account that never moved, nearly all of
 * them, are not written twice.
 */
export const migrateAccountsReadModel = schemaMigration((schema) => [
  `CREATE TABLE IF NOT EXISTS ${schema}.accounts (
         account_id uuid PRIMARY KEY,
         iban_hash text NOT NULL,
         holder_type text,
         status text NOT NULL,
         updated_at timestamptz NOT NULL,
         revision integer NOT NULL
       )`,
  `CREATE INDEX IF NOT EXISTS accounts_iban ON ${schema}.accounts (iban_hash)`,
  `CREATE TABLE IF NOT EXISTS ${schema}.account_ibans (
         account_id uuid NOT NULL,
         iban_hash text NOT NULL,
         PRIMARY KEY (account_id, iban_hash)
       )`,
]);

/**
 * Applies a run of account events in at most three statements, as if one by one: each event carries its
 * account's whole state, so an account's newest revision gives the row, with the holder type of its
 * newest event that names one (a deletion names none, and keeps the one the row has).
 *
 * `atCommit`: applied in the transaction that appended the events; an account it opened (its revision 1
 * is among them) has no row yet, and gets one without ON CONFLICT, as the matching copy does
 * (packages/verifications/src/deciding/account-projection.ts, projectAppendedAccounts).
 */
export async function projectAccountEvents(
  tx: SqlExecutor,
  schema: string,
  events: readonly { event: AccountEvent; revision: number }[],
  options: { atCommit?: boolean } = {},
): Promise<void> {
  if (events.length === 0) return;
  const ibans = new Map<string, { account_id: string; iban_hash: string }>();
  const newest = new Map<
    string,
    { event: AccountEvent; revision: number; holderType: string | null }
  >();
  const opened = new Set<string>();
  for (const { event, revision } of events) {
    const { accountId } = event.data;
    if (options.atCommit === true && revision === 1) opened.add(accountId);
    if (event.type === 'AccountUpdated' && event.data.previousIban !== event.data.iban)
      for (const iban of [event.data.previousIban, event.data.iban]) {
        const hash = ibanPseudonym(iban).hash;
        ibans.set(`${accountId} ${hash}`, { account_id: accountId, iban_hash: hash });
      }
    const named = event.type === 'AccountDeleted' ? null : (event.data.holderType ?? null);
    const seen = newest.get(accountId);
    if (seen === undefined || seen.revision < revision)
      newest.set(accountId, { event, revision, holderType: named ?? seen?.holderType ?? null });
    else if (seen.holderType === null && named !== null) seen.holderType = named;
  }
  if (ibans.size > 0)
    await tx.query(
      `INSERT INTO ${schema}.account_ibans (account_id, iban_hash)
     SELECT account_id, iban_hash FROM jsonb_to_recordset($1::jsonb) AS i(account_id uuid, iban_hash text)
     ON CONFLICT DO NOTHING`,
      [JSON.stringify([...ibans.values()])],
    );
  const rows = [...newest.values()].map(({ event, revision, holderType }) => ({
    account_id: event.data.accountId,
    iban_hash: ibanPseudonym(event.data.iban).hash,
    holder_type: holderType,
    status: event.type === 'AccountDeleted' ? 'deleted' : event.data.status,
    updated_at:
      event.type === 'AccountOpened'
        ? event.data.createdAt
        : event.type === 'AccountUpdated'
          ? event.data.updatedAt
          : event.data.deletedAt,
    revision,
  }));
  // The rows as given; the upsert below adds its order and arbiter.
  const insertRows = `INSERT INTO ${schema}.accounts AS a (account_id, iban_hash, holder_type, status, updated_at, revision)
     SELECT account_id, iban_hash, holder_type, status, updated_at, revision
       FROM jsonb_to_recordset($1::jsonb) AS r(account_id uuid, iban_hash text, holder_type text, status text,
            updated_at timestamptz, revision integer)`;
  const first = rows.filter((row) => opened.has(row.account_id));
  if (first.length > 0) await tx.query(insertRows, [JSON.stringify(first)]);
  const written = rows.filter((row) => !opened.has(row.account_id));
  if (written.length === 0) return;
  await tx.query(
    `${insertRows}
      ORDER BY account_id
     ON CONFLICT (account_id) DO UPDATE SET iban_hash = EXCLUDED.iban_hash,
       holder_type = coalesce(EXCLUDED.holder_type, a.holder_type), status = EXCLUDED.status,
       updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision
     WHERE a.revision < EXCLUDED.revision`,
    [JSON.stringify(written)],
  );
}

export interface AccountStatusRow {
  accountId: string;
  status: AccountStatus;
  updatedAt: string;
}

/** The account's status; undefined when unknown or deleted. */
export async function findAccountStatus(
  sql: SqlExecutor,
  schema: string,
  accountId: string,
): Promise<AccountStatusRow | undefined> {
  const { rows } = await sql.query<{ status: AccountStatus; updated_at: Date | string }>(
    `SELECT status, updated_at FROM ${schema}.accounts WHERE account_id = $1 AND status <> 'deleted'`,
    [accountId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return { accountId, status: row.status, updatedAt: new Date(row.updated_at).toISOString() };
}
