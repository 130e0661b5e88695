import { Iban, HolderName } from '../identifiers.js';
import { z } from '../zod.js';
import { HolderType, PartyIdentifiers } from './accounts.js';

/**
 * What the bank's core-banking system publishes when an account changes (topic
 * `vop.core-banking.account-changes.v1`, keyed by IBAN so one account's changes stay in order).
 * `sourceEventId` is the core system's own id of the change: a change is applied once per id.
 */
const Change = {
  sourceEventId: z.string().min(1).max(200),
  occurredAt: z.iso.datetime({ offset: true }),
  iban: Iban,
};

export const CoreBankingAccountChange = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('AccountOpened'),
    ...Change,
    name: HolderName,
    holderType: HolderType.optional(),
    alternateNames: z.array(HolderName).max(20).optional(),
    identifiers: PartyIdentifiers.optional(),
  }),
  z.strictObject({ type: z.literal('AccountRenamed'), ...Change, name: HolderName }),
  z.strictObject({
    type: z.literal('HoldersChanged'),
    ...Change,
    alternateNames: z.array(HolderName).max(20),
  }),
  z.strictObject({ type: z.literal('AccountClosed'), ...Change }),
]);
export type CoreBankingAccountChange = z.infer<typeof CoreBankingAccountChange>;

/** What the dead-letter topic carries for a change that could not be applied. */
export const CoreBankingDeadLetter = z.object({
  reason: z.enum(['NOT_JSON', 'INVALID_CHANGE', 'UNKNOWN_ACCOUNT']),
  /** The first invalid field, for INVALID_CHANGE. */
  field: z.string().optional(),
  topic: z.string(),
  partition: z.number().int(),
  offset: z.string(),
  /** The message as received. */
  value: z.string(),
});
export type CoreBankingDeadLetter = z.infer<typeof CoreBankingDeadLetter>;
