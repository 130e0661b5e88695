import { after, before, describe } from 'node:test';
import { createPgliteClient } from './pglite-client.js';
import { commandHandlerSpec } from './spec/command-handler-spec.js';
import type { SqlClient } from './types.js';

describe('handleCommand on PGlite in memory', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
  });
  commandHandlerSpec({ client: () => sql });
  after(() => sql.close());
});
