import { randomBytes } from 'node:crypto';
import { createPostgresClient } from '@vop/event-store';
import { requireEnv } from './require-env.js';

export interface TestDatabase {
  /** Connection string of the new, empty database. */
  url: string;
  /** Drops the database, disconnecting whoever is still connected. */
  drop(): Promise<void>;
}

const ADMIN_URL_VARIABLE = 'VOP_TEST_DATABASE_URL';

/** Creates a fresh, uniquely named database on the server at VOP_TEST_DATABASE_URL. */
export async function createTestDatabase(prefix = 'vop_test'): Promise<TestDatabase> {
  const adminUrl = requireEnv(ADMIN_URL_VARIABLE);
  const name = uniqueDatabaseName(prefix);
  await runAsAdmin(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await runAsAdmin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

function uniqueDatabaseName(prefix: string): string {
  const safePrefix = prefix
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 30);
  return `${safePrefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

async function runAsAdmin(adminUrl: string, statement: string): Promise<void> {
  const admin = createPostgresClient({
    connectionString: adminUrl,
    max: 1,
    applicationName: 'vop-testing',
  });
  try {
    await admin.query(statement);
  } finally {
    await admin.close();
  }
}
