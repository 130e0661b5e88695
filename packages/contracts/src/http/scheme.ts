import { Bic, HolderName, Iban, Lei, OneLineText } from '../identifiers.js';
import { z } from '../zod.js';

const FinancialInstitution = z.strictObject({
  financialInstitutionId: z.strictObject({ bicfi: Bic }),
});

export const PartyIdentification = z
  .strictObject({
    lei: Lei.optional(),
    others: z
      .array(z.strictObject({ scheme: OneLineText(35), id: OneLineText(35) }))
      .max(10)
      .optional(),
  })
  .openapi('PartyIdentification');

export const SchemeVerifyRequest = z
  .strictObject({
    party: z.strictObject({ name: HolderName, identification: PartyIdentification.optional() }),
    partyAccount: z.strictObject({ iban: Iban }),
    partyAgent: FinancialInstitution,
    requestingAgent: FinancialInstitution,
    unstructuredRemittanceInformation: z.array(OneLineText(140)).max(10).optional(),
  })
  .openapi('SchemeVerifyRequest');
export type SchemeVerifyRequest = z.infer<typeof SchemeVerifyRequest>;

export const SchemeVerifyResponse = z
  .object({
    partyNameMatch: z.enum(['MTCH', 'CMTC', 'NMTC', 'NOAP']),
    matchedName: z.string().optional(),
    idMatch: z.enum(['MTCH', 'NMTC', 'NOAP']).optional(),
  })
  .openapi('SchemeVerifyResponse');
export type SchemeVerifyResponse = z.infer<typeof SchemeVerifyResponse>;
