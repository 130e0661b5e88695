import type { AccountEvent, HolderType, PartyIdentifiers } from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';

export interface MatchingAccount {
  accountId: string;
  iban: string;
  name: string;
  holderType: HolderType | undefined;
  alternateNames: string[];
  identifiers: PartyIdentifiers | undefined;
  /** `erased`: the holder's key was destroyed (crypto-shredding); the names can no longer be read. */
  status: 'active' | 'closed' | 'blocked' | 'deleted' | 'erased';
}

/**
 * The matching service's account projection. Account events are keyed by IBAN, so an IBAN change can
 * reorder one account's events across partitions: each row keeps the stream revision it reflects and
 * older events are ignored; a deletion leaves a tombstone so a late older event cannot revive it.
 */
export async function migrateAccountProjection(sql: SqlClient, schema: string): Promise<void> {
  await migrateSchema(sql, schema, [
    `CREATE TABLE IF NOT EXISTS ${schema}.accounts (
         account_id uuid PRIMARY KEY,
         iban text NOT NULL,
         name text NOT NULL,
         holder_type text,
         alternate_names jsonb NOT NULL DEFAULT '[]',
         identifiers jsonb,
         status text NOT NULL,
         revision integer NOT NULL
       )`,
    `CREATE INDEX IF NOT EXISTS accounts_iban ON ${schema}.accounts (iban)`,
  ]);
}

export async function projectAccountEvent(
  tx: SqlExecutor,
  schema: string,
  event: AccountEvent,
  revision: number,
): Promise<void> {
  if (event.type === 'AccountDeleted') {
    await tx.query(
      `INSERT INTO ${schema}.accounts (account_id, iban, name, status, revision) VALUES ($1, $2, '', 'deleted', $3)
       ON CONFLICT (account_id) DO UPDATE SET status = 'deleted', name = '', alternate_names = '[]', identifiers = NULL, revision = EXCLUDED.revision
       WHERE ${schema}.accounts.revision < EXCLUDED.revision`,
      [event.data.accountId, event.data.iban, revision],
    );
    return;
  }
  const account = event.data;
  await tx.query(
    `INSERT INTO ${schema}.accounts (account_id, iban, name, holder_type, alternate_names, identifiers, status, revision)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (account_id) DO UPDATE SET iban = EXCLUDED.iban, name = EXCLUDED.name, holder_type = EXCLUDED.holder_type,
       alternate_names = EXCLUDED.alternate_names, identifiers = EXCLUDED.identifiers, status = EXCLUDED.status, revision = EXCLUDED.revision
     WHERE ${schema}.accounts.revision < EXCLUDED.revision`,
    [
      account.accountId,
      account.iban,
      account.name,
      account.holderType ?? null,
      JSON.stringify(account.alternateNames),
      account.identifiers ? JSON.stringify(account.identifiers) : null,
      account.status,
      revision,
    ],
  );
}

interface AccountRow {
  account_id: string;
  iban: string;
  name: string;
  holder_type: HolderType | null;
  alternate_names: string[] | string;
  identifiers: PartyIdentifiers | string | null;
  status: MatchingAccount['status'];
}

const json = <T>(value: T | string): T =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value;

/** The live account per IBAN, preferring an active one when history left several rows; one query for a batch. */
export async function findAccountsByIbans(
  sql: SqlExecutor,
  schema: string,
  ibans: string[],
): Promise<Map<string, MatchingAccount>> {
  const { rows } = await sql.query<AccountRow>(
    `SELECT DISTINCT ON (iban) account_id, iban, name, holder_type, alternate_names, identifiers, status FROM ${schema}.accounts
      WHERE iban = ANY($1::text[]) AND status <> 'deleted'
      ORDER BY iban, (status = 'active') DESC, revision DESC`,
    // IBANs are validated alphanumerics, so the array literal needs no quoting.
    [`{${[...new Set(ibans)].join(',')}}`],
  );
  return new Map(rows.map((row) => [row.iban, toMatchingAccount(row)]));
}

function toMatchingAccount(row: AccountRow): MatchingAccount {
  return {
    accountId: row.account_id,
    iban: row.iban,
    name: row.name,
    holderType: row.holder_type ?? undefined,
    alternateNames: json<string[]>(row.alternate_names),
    identifiers: row.identifiers === null ? undefined : json<PartyIdentifiers>(row.identifiers),
    status: row.status,
  };
}
