import type { AccountEvent, VerificationCompletedData } from '@vop/contracts';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import { accountSubject, FieldCipher, KEYSTORE_SCHEMA, SubjectKeyStore } from '@vop/personal-data';

/** The keys and cipher that keep holder and payee names erasable (crypto-shredding, design §6). */
export interface PersonalData {
  keys: SubjectKeyStore;
  cipher: FieldCipher;
}

export function createPersonalData(sql: SqlClient): PersonalData {
  const keys = new SubjectKeyStore(sql, { schema: KEYSTORE_SCHEMA });
  return { keys, cipher: new FieldCipher(keys) };
}

/** Account events leave the gateway with the holder's names encrypted under the account's own key. */
export function accountEventProtector(cipher: FieldCipher) {
  return async (event: AccountEvent, tx: SqlExecutor): Promise<AccountEvent> => {
    if (event.type === 'AccountDeleted') return event;
    const subject = accountSubject(event.data.accountId);
    return { ...event, data: await cipher.encryptFields(event.data, ['name', 'alternateNames'], subject, tx) } as AccountEvent;
  };
}

/** The disclosed holder name in plain text; gone (undefined) once the holder was erased. */
export async function revealCompletion(cipher: FieldCipher, completed: VerificationCompletedData): Promise<VerificationCompletedData> {
  if (completed.matchedName === undefined) return completed;
  const { matchedName: _encrypted, ...rest } = completed;
  const matchedName = await cipher.decrypt(completed.matchedName);
  return matchedName === undefined ? rest : { ...rest, matchedName };
}
