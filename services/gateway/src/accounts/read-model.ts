import { type AccountEvent, domesticAccountOf } from '@vop/contracts';
import { schemaMigration, type SqlExecutor } from '@vop/event-store';
import { type ApiError, errors } from '@vop/http';

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
export const migrateAccountsReadModel = schemaMigration((schema) => [
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
  // Family D (POST /verify by sort code and account number) finds the account, its status and holder type here.
  `ALTER TABLE ${schema}.accounts ADD COLUMN IF NOT EXISTS sort_code text, ADD COLUMN IF NOT EXISTS account_number text, ADD COLUMN IF NOT EXISTS status text NOT NULL DEFAULT 'active', ADD COLUMN IF NOT EXISTS holder_type text`,
  `CREATE UNIQUE INDEX IF NOT EXISTS accounts_live_domestic ON ${schema}.accounts (sort_code, account_number) WHERE deleted_at IS NULL AND sort_code IS NOT NULL`,
  // A keyed digest of the record a bulk import last wrote (accounts/import): an unchanged row writes
  // nothing. Any other write clears it, and so does the holder's erasure (eraseAccountHolder).
  `ALTER TABLE ${schema}.accounts ADD COLUMN IF NOT EXISTS import_fingerprint text`,
  // Set by the erasure: an import that read the row before it writes no fingerprint after it.
  `ALTER TABLE ${schema}.accounts ADD COLUMN IF NOT EXISTS holder_erased_at timestamptz`,
  // A GB IBAN's own sort code and account number find its account when none was written for it
  // (domesticAccountOf); rows written before that get theirs, unless another live account holds them.
  `UPDATE ${schema}.accounts AS a SET sort_code = substr(a.iban, 9, 6), account_number = substr(a.iban, 15, 8)
      WHERE a.sort_code IS NULL AND a.deleted_at IS NULL AND a.iban ~ '^GB[0-9]{2}[A-Z]{4}[0-9]{14}$'
        AND NOT EXISTS (SELECT 1 FROM ${schema}.accounts AS b WHERE b.deleted_at IS NULL AND b.id <> a.id
              AND coalesce(b.sort_code || b.account_number, CASE WHEN b.iban LIKE 'GB%' THEN substr(b.iban, 9, 14) END)
                  = substr(a.iban, 9, 14))`,
]);

export const LIVE_IBAN_CONSTRAINT = 'accounts_live_iban';
export const LIVE_DOMESTIC_CONSTRAINT = 'accounts_live_domestic';

/** Whether a write failed on one of the read model's unique indexes (a 409 for the caller). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const candidate = error as { code?: unknown; constraint?: unknown; message?: unknown };
  return (
    candidate.code === '23505' &&
    (candidate.constraint === constraint || String(candidate.message).includes(constraint))
  );
}

/** The 409 for a write that would make a second live account with the same IBAN or domestic account. */
export function duplicateAccountConflict(error: unknown): ApiError | undefined {
  if (isUniqueViolation(error, LIVE_IBAN_CONSTRAINT))
    return errors.conflict('IBAN_ALREADY_REGISTERED', 'An account with this IBAN already exists');
  if (isUniqueViolation(error, LIVE_DOMESTIC_CONSTRAINT))
    return errors.conflict(
      'ACCOUNT_NUMBER_ALREADY_REGISTERED',
      'An account with this sort code and account number already exists',
    );
  return undefined;
}

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
    case 'AccountOpened': {
      const { data } = event;
      await tx.query(
        `INSERT INTO ${schema}.accounts (id, iban, created_at, updated_at, test_account, sort_code, account_number, status, holder_type)
         VALUES ($1, $2, $3, $3, $4, $5, $6, $7, $8)`,
        [
          data.accountId,
          data.iban,
          data.createdAt,
          options.testAccount ?? false,
          domesticAccountOf(data)?.sortCode ?? null,
          domesticAccountOf(data)?.accountNumber ?? null,
          data.status,
          data.holderType ?? null,
        ],
      );
      return;
    }
    case 'AccountUpdated': {
      const { data } = event;
      await tx.query(
        `UPDATE ${schema}.accounts SET iban = $2, updated_at = $3, import_fingerprint = NULL, sort_code = $4, account_number = $5, status = $6, holder_type = $7
         WHERE id = $1`,
        [
          data.accountId,
          data.iban,
          data.updatedAt,
          domesticAccountOf(data)?.sortCode ?? null,
          domesticAccountOf(data)?.accountNumber ?? null,
          data.status,
          data.holderType ?? null,
        ],
      );
      return;
    }
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

export interface DomesticAccountRow {
  iban: string;
  status: 'active' | 'closed' | 'blocked';
  holder_type: 'person' | 'organisation' | null;
}

/** The live account with this sort code and account number (family D), if the bank holds one. */
export async function findLiveDomesticAccount(
  sql: SqlExecutor,
  schema: string,
  sortCode: string,
  accountNumber: string,
): Promise<DomesticAccountRow | undefined> {
  const { rows } = await sql.query<DomesticAccountRow>(
    `SELECT iban, status, holder_type FROM ${schema}.accounts
      WHERE sort_code = $1 AND account_number = $2 AND deleted_at IS NULL`,
    [sortCode, accountNumber],
  );
  return rows[0];
}
