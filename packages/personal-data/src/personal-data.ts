import type { SqlClient } from '@vop/event-store';
import { FieldCipher } from './field-cipher.js';
import { SubjectKeyStore } from './subject-key-store.js';
import { KEYSTORE_SCHEMA } from './subjects.js';

/** The keys and cipher that keep holder and payee names erasable (crypto-shredding). */
export interface PersonalData {
  keys: SubjectKeyStore;
  cipher: FieldCipher;
}

/** `sql` is the database holding the keystore schema (in distributed mode, the gateway's). */
export function createPersonalData(sql: SqlClient): PersonalData {
  const keys = new SubjectKeyStore(sql, { schema: KEYSTORE_SCHEMA });
  return { keys, cipher: new FieldCipher(keys) };
}
