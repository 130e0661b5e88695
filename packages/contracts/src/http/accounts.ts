import { AccountStatus, HolderType } from '../events/accounts.js';

/** An account's identifiers as a request states them (the events carry the same shape). */
export const AccountIdentifiers = z.strictObject({
  lei: Lei.optional(),
  others: z
    .array(z.strictObject({ scheme: OneLineText(35), id: OneLineText(256) }))
    .max(20)
    .optional(),
});
import { DomesticAccount, HolderName, Iban, Lei, OneLineText } from '../identifiers.js';
import { z } from '../zod.js';

/** Fields beyond the specification's (holderType, alternateNames, identifiers, status) are optional. */
export const CreateAccountRequest = z
  .strictObject({
    iban: Iban,
    name: HolderName,
    holderType: HolderType.optional(),
    alternateNames: z.array(HolderName).max(20).optional(),
    identifiers: AccountIdentifiers.optional(),
    status: AccountStatus.optional(),
    domesticAccount: DomesticAccount.optional(),
  })
  .openapi('CreateAccountRequest');
export type CreateAccountRequest = z.infer<typeof CreateAccountRequest>;

export const UpdateAccountRequest = z
  .strictObject({
    iban: Iban.optional(),
    name: HolderName.optional(),
    holderType: HolderType.optional(),
    alternateNames: z.array(HolderName).max(20).optional(),
    identifiers: AccountIdentifiers.optional(),
    status: AccountStatus.optional(),
    domesticAccount: DomesticAccount.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'at least one field is required' })
  .openapi('UpdateAccountRequest', { minProperties: 1 });
export type UpdateAccountRequest = z.infer<typeof UpdateAccountRequest>;

export const AccountCreatedResponse = z
  .object({
    id: z.string(),
    iban: z.string(),
    name: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi('AccountCreatedResponse');

/** The sandbox's test-account create (`POST /api/accounts`): `acc_<id>`, no updated_at (specification). */
export const TestAccountCreatedResponse = z
  .object({
    id: z.string().regex(/^acc_/),
    iban: z.string(),
    name: z.string(),
    created_at: z.iso.datetime(),
  })
  .openapi('TestAccountCreatedResponse');

/** Get and update never return the holder name (data minimisation). */
export const AccountResponse = z
  .object({
    id: z.string(),
    iban: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi('AccountResponse');
export type AccountResponse = z.infer<typeof AccountResponse>;

export const AccountIdParam = z.uuid();
