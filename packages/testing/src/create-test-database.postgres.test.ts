import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPostgresClient } from '@vop/event-store';
import { createTestDatabase } from './create-test-database.js';
import { requireEnv } from './require-env.js';

const adminUrl = requireEnv('VOP_TEST_DATABASE_URL');

async function databaseExists(name: string): Promise<boolean> {
  const admin = createPostgresClient({ connectionString: adminUrl, max: 1 });
  try {
    const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rows.length === 1;
  } finally {
    await admin.close();
  }
}

describe('createTestDatabase', () => {
  it('creates an empty, uniquely named database and drops it even while connections are open', async () => {
    const first = await createTestDatabase('Event Store');
    const second = await createTestDatabase('Event Store');
    const name = new URL(first.url).pathname.slice(1);
    assert.match(name, /^event_store_[a-z0-9]+_[0-9a-f]{8}$/);
    assert.notEqual(first.url, second.url);

    const client = createPostgresClient({ connectionString: first.url, max: 1 });
    try {
      const { rows } = await client.query<{ database: string; tables: number }>(
        "SELECT current_database() AS database, (SELECT count(*)::integer FROM pg_tables WHERE schemaname = 'public') AS tables",
      );
      assert.deepEqual(rows, [{ database: name, tables: 0 }]);

      await first.drop();
      assert.equal(await databaseExists(name), false);
      await first.drop();
    } finally {
      await client.close().catch(() => undefined);
      await second.drop();
    }
  });
});

describe('requireEnv', () => {
  it('returns a variable that is set', () => {
    process.env.VOP_REQUIRE_ENV_PROBE = 'value';
    assert.equal(requireEnv('VOP_REQUIRE_ENV_PROBE'), 'value');
  });

  it('names the variable and how to provide it when it is missing', () => {
    delete process.env.VOP_REQUIRE_ENV_MISSING;
    assert.throws(
      () => requireEnv('VOP_REQUIRE_ENV_MISSING'),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, /VOP_REQUIRE_ENV_MISSING is not set/);
        assert.match(error.message, /pnpm test/);
        assert.match(error.message, /infra\/local/);
        return true;
      },
    );
  });
});
