import { after, before, describe } from 'node:test';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { personalDataSpec } from './spec/personal-data-spec.js';

describe('personal data on PGlite', () => {
  let sql: SqlClient;
  before(async () => {
    sql = await createPgliteClient({});
  });
  // PGlite has one backend, so the "other process" shares the client but not the key store's cache.
  personalDataSpec({ client: () => sql, otherClient: () => sql });
  after(() => sql.close());
});
