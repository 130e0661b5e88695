import type { AccountEvent, AccountStatus } from '@vop/contracts';
import { schemaMigration, type SqlExecutor } from '@vop/event-store';
import { ibanPseudonym } from '../activity/iban-pseudonym.js';

/**
 * Account status for analysts: no names, the IBAN only as a pseudonym. Account events are keyed by
 * IBAN, so an IBAN change can reorder one account's events: a row keeps the stream revision it
 * reflects and older events are ignored; a deletion leaves a tombstone. Every IBAN an account has
 * held is kept, so its history follows it across an IBAN change.
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

export async function projectAccountEvent(
  tx: SqlExecutor,
  schema: string,
  event: AccountEvent,
  revision: number,
): Promise<void> {
  const iban = ibanPseudonym(event.data.iban);
  await tx.query(
    `INSERT INTO ${schema}.account_ibans (account_id, iban_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
    [event.data.accountId, iban.hash],
  );
  const at =
    event.type === 'AccountOpened'
      ? event.data.createdAt
      : event.type === 'AccountUpdated'
        ? event.data.updatedAt
        : event.data.deletedAt;
  const status = event.type === 'AccountDeleted' ? 'deleted' : event.data.status;
  const holderType = event.type === 'AccountDeleted' ? null : (event.data.holderType ?? null);
  await tx.query(
    `INSERT INTO ${schema}.accounts AS a (account_id, iban_hash, holder_type, status, updated_at, revision)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id) DO UPDATE SET iban_hash = EXCLUDED.iban_hash,
       holder_type = coalesce(EXCLUDED.holder_type, a.holder_type), status = EXCLUDED.status,
       updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision
     WHERE a.revision < EXCLUDED.revision`,
    [event.data.accountId, iban.hash, holderType, status, at, revision],
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
