import type { AccountEvent } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import type { FieldCipher } from './field-cipher.js';
import { accountSubject } from './subjects.js';

/** Turns an account event into the form that is stored and published (personal fields encrypted). */
export type AccountEventProtector = (event: AccountEvent, tx: SqlExecutor) => Promise<AccountEvent>;

/** Account events leave their writer with the holder's names encrypted under the account's own key. */
export function accountEventProtector(cipher: FieldCipher): AccountEventProtector {
  return async (event, tx) => {
    if (event.type === 'AccountDeleted') return event;
    const subject = accountSubject(event.data.accountId);
    const data = await cipher.encryptFields(event.data, ['name', 'alternateNames'], subject, tx);
    return { ...event, data } as AccountEvent;
  };
}
