import { z } from '../zod.js';

export const HolderType = z.enum(['person', 'organisation']);
export type HolderType = z.infer<typeof HolderType>;
export const AccountStatus = z.enum(['active', 'closed', 'blocked']);
export type AccountStatus = z.infer<typeof AccountStatus>;

export const PartyIdentifiers = z.object({
  lei: z.string().optional(),
  others: z.array(z.object({ scheme: z.string().min(1), id: z.string().min(1) })).optional(),
});
export type PartyIdentifiers = z.infer<typeof PartyIdentifiers>;

/** The account as the matching service needs it; carried whole in every account event. */
export const AccountSnapshot = z.object({
  accountId: z.uuid(),
  iban: z.string(),
  name: z.string(),
  holderType: HolderType.optional(),
  alternateNames: z.array(z.string()).default([]),
  identifiers: PartyIdentifiers.optional(),
  status: AccountStatus,
  /** UK sort code and account number, when the account has them (family D looks accounts up by them). */
  domesticAccount: z.object({ sortCode: z.string(), accountNumber: z.string() }).optional(),
});
export type AccountSnapshot = z.infer<typeof AccountSnapshot>;

export const AccountOpened = z.object({
  type: z.literal('AccountOpened'),
  data: AccountSnapshot.extend({ createdAt: z.iso.datetime() }),
});
export const AccountUpdated = z.object({
  type: z.literal('AccountUpdated'),
  data: AccountSnapshot.extend({ previousIban: z.string(), updatedAt: z.iso.datetime() }),
});
export const AccountDeleted = z.object({
  type: z.literal('AccountDeleted'),
  data: z.object({ accountId: z.uuid(), iban: z.string(), deletedAt: z.iso.datetime() }),
});

export const AccountEvent = z.discriminatedUnion('type', [
  AccountOpened,
  AccountUpdated,
  AccountDeleted,
]);
export type AccountEvent = z.infer<typeof AccountEvent>;
export const ACCOUNT_EVENT_VERSION = 1;

/** Every account's stream in the gateway's store is named with it; so is each message the relay publishes. */
export const ACCOUNT_STREAM_PREFIX = 'account-';
export const accountStreamId = (accountId: string): string =>
  `${ACCOUNT_STREAM_PREFIX}${accountId}`;

const ACCOUNT_EVENT_TYPES: ReadonlySet<string> = new Set(
  AccountEvent.options.map((option) => option.shape.type.value),
);

/** Whether a stored or delivered event of this type is an account event. */
export const isAccountEventType = (type: string): boolean => ACCOUNT_EVENT_TYPES.has(type);

/** The one parser of account events, from the type and data of a stored or delivered event. */
export function parseAccountEvent(type: string, data: unknown): AccountEvent {
  return AccountEvent.parse({ type, data });
}
