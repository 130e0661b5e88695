import { HolderType } from '../events/accounts.js';
import { NameMatchOutcome } from '../events/verifications.js';
import { HolderName } from '../identifiers.js';
import { z } from '../zod.js';

/** An operator asks how the engine compares a typed name with holder names it supplies (none stored). */
export const MatchExplainRequest = z
  .strictObject({
    name: HolderName,
    holderNames: z.array(HolderName).min(1).max(10),
    holderType: HolderType.optional(),
  })
  .openapi('MatchExplainRequest');
export type MatchExplainRequest = z.infer<typeof MatchExplainRequest>;

export const MatchExplanation = z
  .object({
    outcome: NameMatchOutcome.exclude(['NOAP']),
    score: z.number().min(0).max(1),
    matchedName: z.string().optional(),
    reasons: z.array(z.string()),
  })
  .openapi('MatchExplanation');
export type MatchExplanation = z.infer<typeof MatchExplanation>;
