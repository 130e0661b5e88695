import { randomInt } from 'node:crypto';
import {
  loadReferenceData,
  REFERENCE_DATA_SET_NAME,
  REFERENCE_DATA_VERSIONS,
  resolveReferenceDataVersion,
  type ReferenceDataVersion,
} from '@vop/conformance';
import type { DataScenario } from '@vop/contracts';
import { ApiError } from '@vop/http';
import { composeIBAN } from 'ibantools';
import { handleAccountCommand } from '../accounts/command-handler.js';
import { AccountNotFoundError } from '../accounts/decider.js';
import {
  duplicateAccountConflict,
  findExpiredTestAccounts,
  findLiveAccountIdByIban,
} from '../accounts/read-model.js';
import type { AccountRoutesOptions } from '../accounts/routes.js';

// Sandbox data: every account written here is a test account (swept after 24 hours, removed by a reset).

export interface DataLoaded {
  dataSet: string;
  version: string;
  accounts: number;
  loaded: number;
  alreadyPresent: number;
}

/**
 * The shipped version a caller means (`latest`, `1.0`, `1.0.0`); an unknown one is refused naming
 * `version`, with the versions known.
 */
export function referenceDataVersion(spelling: string): ReferenceDataVersion {
  const version = resolveReferenceDataVersion(spelling);
  if (version !== undefined) return version;
  const known = [...REFERENCE_DATA_VERSIONS, 'latest'].join(', ');
  throw new ApiError(
    400,
    'INVALID_REQUEST',
    `No version ${JSON.stringify(spelling)} of ${REFERENCE_DATA_SET_NAME}; known versions: ${known}`,
    { field: 'version', reason: 'UNKNOWN_VERSION', suggestion: `Use one of: ${known}` },
  );
}

/** Opens the reference accounts whose IBAN no live account holds (a second load adds nothing). */
export async function loadReferenceAccounts(
  writes: AccountRoutesOptions,
  version: ReferenceDataVersion,
  metadata: Record<string, string>,
): Promise<DataLoaded> {
  const data = await loadReferenceData(version);
  let loaded = 0;
  for (const account of data.accounts) {
    if (
      (await findLiveAccountIdByIban(writes.store.sql, writes.store.schema, account.iban)) !==
      undefined
    )
      continue;
    try {
      await handleAccountCommand(
        writes.store,
        {
          type: 'OpenAccount',
          accountId: writes.newId(),
          fields: account,
          now: writes.clock().toISOString(),
        },
        metadata,
        { testAccount: true },
        writes.protect,
        writes.copy,
      );
      loaded++;
    } catch (error) {
      // Opened meanwhile by a load in another gateway (this process runs its loads one at a time,
      // sandbox-data-routes.ts): the read model's unique index refused the second open, and the
      // whole transaction with it (the accounts routes' 409). Present either way, and not this
      // load's to count.
      if (duplicateAccountConflict(error) === undefined) throw error;
    }
  }
  return {
    dataSet: data.dataSet,
    version: data.version,
    accounts: data.accounts.length,
    loaded,
    alreadyPresent: data.accounts.length - loaded,
  };
}

/** Deletes every live test account through the account decider; the bank's own records stay. */
export async function removeTestAccounts(
  writes: AccountRoutesOptions,
  metadata: Record<string, string>,
): Promise<number> {
  // Every test account: all were created before this instant (a day of clock skew to spare).
  const everything = new Date(writes.clock().getTime() + 24 * 60 * 60 * 1000);
  let removed = 0;
  for (;;) {
    const ids = await findExpiredTestAccounts(
      writes.store.sql,
      writes.store.schema,
      everything,
      200,
    );
    if (ids.length === 0) return removed;
    for (const accountId of ids) {
      try {
        await handleAccountCommand(
          writes.store,
          { type: 'DeleteAccount', accountId, now: writes.clock().toISOString() },
          metadata,
          {},
          undefined,
          writes.copy,
        );
        removed++;
      } catch (error) {
        // Removed meanwhile by another reset (a client that gave up on a long one and sent another)
        // or by its owner: it is gone either way, and not this reset's to count.
        if (!(error instanceof AccountNotFoundError)) throw error;
      }
    }
  }
}

const FIRST_NAMES = ['Anna', 'Lukas', 'Marie', 'Felix', 'Sophie', 'Jonas', 'Lena', 'Paul'];
/** Each with a doubled letter: dropping one is a close match (Musterman for Mustermann). */
const SURNAMES = ['Mustermann', 'Zimmermann', 'Kellermann', 'Hartmann', 'Bergmann', 'Lehmann'];
const UNRELATED = ['Wolfgang Petersen', 'Olga Nowak', 'Kwame Mensah', 'Ines Duarte'];

/** A generated account's name and, for its scenario, the name a request gives and the answer. */
export function generatedCase(index: number, scenario: DataScenario) {
  const first = FIRST_NAMES[index % FIRST_NAMES.length] as string;
  const surname = SURNAMES[Math.floor(index / FIRST_NAMES.length) % SURNAMES.length] as string;
  const name = `${first} ${surname}`;
  switch (scenario) {
    // The scheme-style answer of /vop/verify carries matchedName on MTCH and CMTC (specification A).
    case 'exact_match':
      return { name, asked: name, partyNameMatch: 'MTCH', matchedName: 'present' } as const;
    case 'close_match':
      return {
        name,
        asked: `${first} ${surname.replace(/(.)\1/, '$1')}`,
        partyNameMatch: 'CMTC',
        matchedName: 'present',
      } as const;
    case 'no_match':
      return {
        name,
        asked: UNRELATED[index % UNRELATED.length] as string,
        partyNameMatch: 'NMTC',
        matchedName: 'absent',
      } as const;
  }
}

/** A German IBAN at the sandbox bank code with a random account number. */
export function sandboxIban(): string {
  const bban = `50010517${String(randomInt(1_000_000_000, 9_999_999_999))}`;
  const iban = composeIBAN({ countryCode: 'DE', bban });
  if (iban === null) throw new Error('could not compose a sandbox IBAN');
  return iban;
}
