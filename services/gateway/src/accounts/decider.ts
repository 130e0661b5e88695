import type {
  AccountEvent,
  AccountSnapshot,
  AccountStatus,
  HolderType,
  PartyIdentifiers,
} from '@vop/contracts';

/** The account aggregate: pure decide/evolve, no I/O. */
export type AccountState =
  | { status: 'none' }
  | { status: 'open'; account: AccountSnapshot; createdAt: string; updatedAt: string }
  | { status: 'deleted'; accountId: string };

export const initialAccountState: AccountState = { status: 'none' };

export interface AccountFields {
  iban: string;
  name: string;
  holderType?: HolderType;
  alternateNames?: string[];
  identifiers?: PartyIdentifiers;
  status?: AccountStatus;
  domesticAccount?: { sortCode: string; accountNumber: string };
}

export type AccountCommand =
  | { type: 'OpenAccount'; accountId: string; fields: AccountFields; now: string }
  | { type: 'UpdateAccount'; accountId: string; changes: Partial<AccountFields>; now: string }
  | { type: 'DeleteAccount'; accountId: string; now: string };

export class AccountNotFoundError extends Error {
  constructor(readonly accountId: string) {
    super('Account not found');
    this.name = 'AccountNotFoundError';
  }
}

export class AccountAlreadyExistsError extends Error {
  constructor(readonly accountId: string) {
    super('Account already exists');
    this.name = 'AccountAlreadyExistsError';
  }
}

export function decideAccount(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'OpenAccount': {
      if (state.status !== 'none') throw new AccountAlreadyExistsError(command.accountId);
      const { fields } = command;
      return [
        {
          type: 'AccountOpened',
          data: {
            accountId: command.accountId,
            iban: fields.iban,
            name: fields.name,
            ...(fields.holderType && { holderType: fields.holderType }),
            alternateNames: fields.alternateNames ?? [],
            ...(fields.identifiers && { identifiers: fields.identifiers }),
            status: fields.status ?? 'active',
            ...(fields.domesticAccount && { domesticAccount: fields.domesticAccount }),
            createdAt: command.now,
          },
        },
      ];
    }
    case 'UpdateAccount': {
      if (state.status !== 'open') throw new AccountNotFoundError(command.accountId);
      const current = state.account;
      const { changes } = command;
      const holderType = changes.holderType ?? current.holderType;
      const identifiers = changes.identifiers ?? current.identifiers;
      const domesticAccount = changes.domesticAccount ?? current.domesticAccount;
      return [
        {
          type: 'AccountUpdated',
          data: {
            accountId: current.accountId,
            iban: changes.iban ?? current.iban,
            name: changes.name ?? current.name,
            ...(holderType && { holderType }),
            alternateNames: changes.alternateNames ?? current.alternateNames,
            ...(identifiers && { identifiers }),
            status: changes.status ?? current.status,
            ...(domesticAccount && { domesticAccount }),
            previousIban: current.iban,
            updatedAt: command.now,
          },
        },
      ];
    }
    case 'DeleteAccount': {
      if (state.status !== 'open') throw new AccountNotFoundError(command.accountId);
      return [
        {
          type: 'AccountDeleted',
          data: { accountId: command.accountId, iban: state.account.iban, deletedAt: command.now },
        },
      ];
    }
  }
}

export function evolveAccount(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'AccountOpened': {
      const { createdAt, ...account } = event.data;
      return { status: 'open', account, createdAt, updatedAt: createdAt };
    }
    case 'AccountUpdated': {
      if (state.status !== 'open') return state;
      const { previousIban: _previousIban, updatedAt, ...account } = event.data;
      return { status: 'open', account, createdAt: state.createdAt, updatedAt };
    }
    case 'AccountDeleted':
      return { status: 'deleted', accountId: event.data.accountId };
  }
}
