import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgliteClient } from '@vop/event-store';
import { createLogger } from '@vop/observability';
import {
  FieldCipher,
  KEYSTORE_SCHEMA,
  SubjectKeyStore,
  typedNameSubject,
} from '@vop/personal-data';
import { TypedNameRetention } from './typed-name-retention.js';

const DAY = 24 * 60 * 60 * 1000;

describe('typed payee name retention', () => {
  it('shreds the typed names of the days that left the retention window, and only those', async () => {
    const sql = await createPgliteClient({});
    try {
      const keys = new SubjectKeyStore(sql, { schema: KEYSTORE_SCHEMA, cacheTtlMs: 0 });
      await keys.migrate();
      const cipher = new FieldCipher(keys);
      const today = new Date('2026-11-21T10:00:00Z');
      const old = await cipher.encrypt(
        typedNameSubject(new Date(today.getTime() - 9 * DAY)),
        'Typed Long Ago',
      );
      const recent = await cipher.encrypt(
        typedNameSubject(new Date(today.getTime() - 2 * DAY)),
        'Typed Recently',
      );
      const retention = new TypedNameRetention(
        keys,
        7 * DAY,
        createLogger({ service: 'test', level: 'silent' }),
      );

      assert.equal(await retention.enforce(today), 1);
      assert.equal(await cipher.decrypt(old), undefined);
      assert.equal(await cipher.decrypt(recent), 'Typed Recently');
      assert.equal(await retention.enforce(today), 0, 'idempotent');
    } finally {
      await sql.close();
    }
  });
});
