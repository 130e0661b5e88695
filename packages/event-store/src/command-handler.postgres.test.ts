import { after, before, describe } from 'node:test';
import { createPostgresClient } from './postgres-client.js';
import { commandHandlerSpec } from './spec/command-handler-spec.js';
import { testDatabaseUrl } from './spec/database-url.js';
import type { SqlClient } from './types.js';

describe('handleCommand on PostgreSQL', () => {
  let sql: SqlClient;
  before(() => {
    sql = createPostgresClient({
      connectionString: testDatabaseUrl(),
      applicationName: 'command-handler-test',
    });
  });
  commandHandlerSpec({ client: () => sql });
  after(() => sql.close());
});
