import type { AccountEvent } from '@vop/contracts';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';

export interface AccountRow {
  id: string;
  iban: string;
  created_at: Date | string;
  updated_at: Date | string;
}

/**
 * The gateway's own view of accounts, updated inline in the appending transaction: read-your-writes for
 * GET, and the unique index that keeps one live account per IBAN. It holds no holder name.
 */
export async function migrateAccountsReadModel(sql: SqlClient, schema: string): Promise<void> {
  await migrateSchema(sql, schema, [
    `CREATE TABLE IF NOT EXISTS ${schema}.accounts (
         id uuid PRIMARY KEY,
         iban text NOT NULL,
         created_at timestamptz NOT NULL,
         updated_at timestamptz NOT NULL,
         deleted_at timestamptz
       )`,
    `CREATE UNIQUE INDEX IF NOT EXISTS accounts_live_iban ON ${schema}.accounts (iban) WHERE deleted_at IS NULL`,
    // Test accounts (sandbox endpoints) are removed by the retention job; the index finds the live ones by age.
    `ALTER TABLE ${schema}.accounts ADD COLUMN IF NOT EXISTS test_account boolean NOT NULL DEFAULT false`,
    `CREATE INDEX IF NOT EXISTS accounts_live_test_by_age ON ${schema}.accounts (created_at) WHERE test_account AND deleted_at IS NULL`,
    // A keyed digest of the record a bulk import last wrote (accounts/import): an unchanged row writes
    // nothing. Any other write clears it; it dies with the holder's key on erasure.
    `ALTER TABLE ${schema}.accounts ADD COLUMN IF NOT EXISTS import_fingerprint text`,
  ]);
}

export const LIVE_IBAN_CONSTRAINT = 'accounts_live_iban';

export interface ProjectionOptions {
  /** Opened through the sandbox endpoint: removed after the test-account retention. */
  testAccount?: boolean;
}

export async function projectAccountEvent(
  tx: SqlExecutor,
  schema: string,
  event: AccountEvent,
  options: ProjectionOptions = {},
): Promise<void> {
  switch (event.type) {
    case 'AccountOpened':
      await tx.query(
        `INSERT INTO ${schema}.accounts (id, iban, created_at, updated_at, test_account) VALUES ($1, $2, $3, $3, $4)`,
        [event.data.accountId, event.data.iban, event.data.createdAt, options.testAccount ?? false],
      );
      return;
    case 'AccountUpdated':
      await tx.query(
        `UPDATE ${schema}.accounts SET iban = $2, updated_at = $3, import_fingerprint = NULL WHERE id = $1`,
        [event.data.accountId, event.data.iban, event.data.updatedAt],
      );
      return;
    case 'AccountDeleted':
      await tx.query(
        `UPDATE ${schema}.accounts SET deleted_at = $2, import_fingerprint = NULL WHERE id = $1`,
        [event.data.accountId, event.data.deletedAt],
      );
      return;
  }
}

export async function findLiveAccount(
  sql: SqlExecutor,
  schema: string,
  id: string,
): Promise<AccountRow | undefined> {
  const { rows } = await sql.query<AccountRow>(
    `SELECT id, iban, created_at, updated_at FROM ${schema}.accounts WHERE id = $1 AND deleted_at IS NULL`,
    [id],
  );
  return rows[0];
}

export async function isLiveTestAccount(
  sql: SqlExecutor,
  schema: string,
  id: string,
): Promise<boolean> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id FROM ${schema}.accounts WHERE id = $1 AND test_account AND deleted_at IS NULL`,
    [id],
  );
  return rows.length > 0;
}

/** Test accounts created before the cutoff and not yet deleted, oldest first. */
export async function findExpiredTestAccounts(
  sql: SqlExecutor,
  schema: string,
  createdBefore: Date,
  limit: number,
): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id FROM ${schema}.accounts WHERE test_account AND deleted_at IS NULL AND created_at < $1 ORDER BY created_at LIMIT $2`,
    [createdBefore.toISOString(), limit],
  );
  return rows.map((row) => row.id);
}

/** The live account holding an IBAN, if any (the unique index allows one). */
export async function findLiveAccountIdByIban(
  sql: SqlExecutor,
  schema: string,
  iban: string,
): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id FROM ${schema}.accounts WHERE iban = $1 AND deleted_at IS NULL`,
    [iban],
  );
  return rows[0]?.id;
}
