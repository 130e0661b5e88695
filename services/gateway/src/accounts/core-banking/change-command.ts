import type { CoreBankingAccountChange } from '@vop/contracts';
import type { AccountCommand } from '../decider.js';

/**
 * The account command a core-banking change asks for, given the live account that holds its IBAN
 * (pure: the new id and the time are passed in). An opening for an IBAN we already hold updates that
 * account (the core system is the source of truth); other changes need the account: undefined
 * means the change names an IBAN we do not hold.
 */
export function commandForChange(
  change: CoreBankingAccountChange,
  liveAccountId: string | undefined,
  ids: { newId: () => string; now: string },
): AccountCommand | undefined {
  const { now } = ids;
  switch (change.type) {
    case 'AccountOpened': {
      const fields = {
        name: change.name,
        ...(change.holderType && { holderType: change.holderType }),
        alternateNames: change.alternateNames ?? [],
        ...(change.identifiers && { identifiers: change.identifiers }),
        status: 'active' as const,
      };
      if (liveAccountId === undefined) {
        const accountId = ids.newId();
        return { type: 'OpenAccount', accountId, fields: { iban: change.iban, ...fields }, now };
      }
      return { type: 'UpdateAccount', accountId: liveAccountId, changes: fields, now };
    }
    case 'AccountRenamed':
      return liveAccountId === undefined
        ? undefined
        : { type: 'UpdateAccount', accountId: liveAccountId, changes: { name: change.name }, now };
    case 'HoldersChanged':
      return liveAccountId === undefined
        ? undefined
        : {
            type: 'UpdateAccount',
            accountId: liveAccountId,
            changes: { alternateNames: change.alternateNames },
            now,
          };
    case 'AccountClosed':
      return liveAccountId === undefined
        ? undefined
        : { type: 'UpdateAccount', accountId: liveAccountId, changes: { status: 'closed' }, now };
  }
}
