import type { AccountEvent } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';

/** Turns an account event into the form that is stored and published (personal fields encrypted). */
export type AccountEventProtector = (event: AccountEvent, tx: SqlExecutor) => Promise<AccountEvent>;
