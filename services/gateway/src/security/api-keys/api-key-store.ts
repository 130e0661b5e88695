import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';
import {
  type ApiKeyScope,
  type KeyEnvironment,
  generateApiKeySecret,
  hashApiKeySecret,
  newKeyId,
} from './api-key-secret.js';

/** What may be shown about a key: never the secret nor its hash. */
export interface ApiKeyRecord {
  keyId: string;
  participantId: string;
  environment: KeyEnvironment;
  scopes: ApiKeyScope[];
  createdAt: string;
  revokedAt: string | null;
}

export interface IssuedApiKey extends ApiKeyRecord {
  /** Shown once, at issue. */
  secret: string;
}

interface ApiKeyRow {
  key_id: string;
  participant_id: string;
  environment: KeyEnvironment;
  scopes: ApiKeyScope[];
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const COLUMNS = 'key_id, participant_id, environment, scopes, created_at, revoked_at';

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    participantId: row.participant_id,
    environment: row.environment,
    scopes: row.scopes,
    createdAt: new Date(row.created_at).toISOString(),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  };
}

/** API keys in the gateway schema, stored as SHA-256 hashes of their secrets. */
export class ApiKeyStore {
  constructor(
    readonly sql: SqlClient,
    readonly schema: string,
  ) {}

  async migrate(): Promise<void> {
    await migrateSchema(this.sql, this.schema, [
      `CREATE TABLE IF NOT EXISTS ${this.schema}.api_keys (
           key_id text PRIMARY KEY,
           secret_hash text NOT NULL UNIQUE,
           participant_id text NOT NULL,
           environment text NOT NULL CHECK (environment IN ('test', 'live')),
           scopes text[] NOT NULL,
           created_at timestamptz NOT NULL DEFAULT now(),
           revoked_at timestamptz
         )`,
    ]);
  }

  async issue(
    request: { participantId: string; environment: KeyEnvironment; scopes: ApiKeyScope[] },
    tx: SqlExecutor = this.sql,
  ): Promise<IssuedApiKey> {
    const secret = generateApiKeySecret(request.environment);
    const { rows } = await tx.query<ApiKeyRow>(
      `INSERT INTO ${this.schema}.api_keys (key_id, secret_hash, participant_id, environment, scopes)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [
        newKeyId(),
        hashApiKeySecret(secret),
        request.participantId,
        request.environment,
        [...new Set(request.scopes)],
      ],
    );
    return { ...toRecord(rows[0] as ApiKeyRow), secret };
  }

  async list(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.sql.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.api_keys ORDER BY created_at, key_id`,
    );
    return rows.map(toRecord);
  }

  /** Returns false when no such key exists; revoking twice keeps the first revocation time. */
  async revoke(keyId: string, tx: SqlExecutor = this.sql): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE ${this.schema}.api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE key_id = $1`,
      [keyId],
    );
    return rowCount > 0;
  }

  /** The key with this secret, unless it is revoked. */
  async findActive(secret: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.sql.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.api_keys WHERE secret_hash = $1 AND revoked_at IS NULL`,
      [hashApiKeySecret(secret)],
    );
    return rows[0] && toRecord(rows[0]);
  }
}
