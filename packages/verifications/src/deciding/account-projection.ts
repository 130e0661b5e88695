import type { AccountEvent, HolderType, PartyIdentifiers } from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';
import type { AppendedAccountEvent } from './account-copy-at-commit.js';

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

/** Applies one account event; whether it changed the copy (an event as old as the row's changes nothing). */
export async function projectAccountEvent(
  tx: SqlExecutor,
  schema: string,
  event: AccountEvent,
  revision: number,
): Promise<boolean> {
  if (event.type === 'AccountDeleted') {
    const { rowCount } = await tx.query(
      `INSERT INTO ${schema}.accounts (account_id, iban, name, status, revision) VALUES ($1, $2, '', 'deleted', $3)
       ON CONFLICT (account_id) DO UPDATE SET status = 'deleted', name = '', alternate_names = '[]', identifiers = NULL, revision = EXCLUDED.revision
       WHERE ${schema}.accounts.revision < EXCLUDED.revision`,
      [event.data.accountId, event.data.iban, revision],
    );
    return rowCount > 0;
  }
  const account = event.data;
  const { rowCount } = await tx.query(
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
  return rowCount > 0;
}

/**
 * Applies the events of one write (several accounts' at once: an import's chunk) in at most three
 * statements, as projectAccountEvent would one by one. Each event carries its account's whole state,
 * so an account's newest event alone gives the row. Rows are locked in account order, so two such
 * writes cannot deadlock each other. Returns the accounts whose rows changed (an event as old as the
 * row's changes nothing: a copy written at commit already had it).
 *
 * `atCommit`: applied in the transaction that appended the events. An account whose revision 1 is
 * among them was opened by that transaction, so no copy has a row for it, and its row is inserted
 * without ON CONFLICT's arbiter check and confirmation, a seventh less PGlite time a row (bench/RESULTS.md
 * §5, "Rows no copy can hold yet"). Were a row there after all, the write fails, it is not overwritten.
 */
export async function projectAppendedAccounts(
  tx: SqlExecutor,
  schema: string,
  appended: readonly AppendedAccountEvent[],
  options: { atCommit?: boolean } = {},
): Promise<Set<string>> {
  const changed = new Set<string>();
  const newest = new Map<string, AppendedAccountEvent>();
  const opened = new Set<string>();
  for (const entry of appended) {
    const { accountId } = entry.event.data;
    if (options.atCommit === true && entry.revision === 1) opened.add(accountId);
    const seen = newest.get(accountId);
    if (seen === undefined || seen.revision < entry.revision) newest.set(accountId, entry);
  }
  const deleted = [...newest.values()].filter(({ event }) => event.type === 'AccountDeleted');
  const rows = [...newest.values()].flatMap(({ event, revision }) =>
    event.type === 'AccountDeleted'
      ? []
      : [
          {
            account_id: event.data.accountId,
            iban: event.data.iban,
            name: event.data.name,
            holder_type: event.data.holderType ?? null,
            alternate_names: event.data.alternateNames,
            identifiers: event.data.identifiers ?? null,
            status: event.data.status,
            revision,
          },
        ],
  );
  const first = rows.filter((row) => opened.has(row.account_id));
  const written = rows.filter((row) => !opened.has(row.account_id));
  // The rows as given; the upsert below adds its order, arbiter and RETURNING.
  const insertRows = `INSERT INTO ${schema}.accounts (account_id, iban, name, holder_type, alternate_names, identifiers, status, revision)
       SELECT account_id, iban, name, holder_type, alternate_names, identifiers, status, revision
         FROM jsonb_to_recordset($1::jsonb) AS written(account_id uuid, iban text, name text, holder_type text,
              alternate_names jsonb, identifiers jsonb, status text, revision integer)`;
  if (first.length > 0) {
    await tx.query(insertRows, [JSON.stringify(first)]);
    for (const row of first) changed.add(row.account_id);
  }
  if (written.length > 0) {
    const { rows } = await tx.query<{ account_id: string }>(
      `${insertRows}
        ORDER BY account_id
       ON CONFLICT (account_id) DO UPDATE SET iban = EXCLUDED.iban, name = EXCLUDED.name, holder_type = EXCLUDED.holder_type,
         alternate_names = EXCLUDED.alternate_names, identifiers = EXCLUDED.identifiers, status = EXCLUDED.status, revision = EXCLUDED.revision
       WHERE ${schema}.accounts.revision < EXCLUDED.revision
       RETURNING account_id::text`,
      [JSON.stringify(written)],
    );
    for (const row of rows) changed.add(row.account_id);
  }
  if (deleted.length > 0) {
    const { rows } = await tx.query<{ account_id: string }>(
      `INSERT INTO ${schema}.accounts (account_id, iban, name, status, revision)
       SELECT account_id, iban, '', 'deleted', revision
         FROM jsonb_to_recordset($1::jsonb) AS deleted(account_id uuid, iban text, revision integer)
        ORDER BY account_id
       ON CONFLICT (account_id) DO UPDATE SET status = 'deleted', name = '', alternate_names = '[]', identifiers = NULL, revision = EXCLUDED.revision
       WHERE ${schema}.accounts.revision < EXCLUDED.revision
       RETURNING account_id::text`,
      [
        JSON.stringify(
          deleted.map(({ event, revision }) => ({
            account_id: event.data.accountId,
            iban: event.data.iban,
            revision,
          })),
        ),
      ],
    );
    for (const row of rows) changed.add(row.account_id);
  }
  return changed;
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
