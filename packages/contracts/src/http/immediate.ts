import { z } from '../zod.js';

/** Family C, production form (`POST /api/verify`): the answer at once. */
export const ImmediateVerifyResponse = z
  .object({
    match: z.boolean(),
    confidence_score: z.number().min(0).max(1),
    verification_id: z.string().regex(/^vrf_[0-9a-f-]{36}$/),
    verified_at: z.iso.datetime(),
    /** The name the bank holds, only on a close match (data minimisation). */
    suggested_name: z.string().optional(),
    /** Why there is no outcome: the account is unknown or closed (NOAP). */
    reason: z.string().optional(),
  })
  .openapi('ImmediateVerifyResponse');
export type ImmediateVerifyResponse = z.infer<typeof ImmediateVerifyResponse>;

/** Family C, simple form (`POST /api/v1/verify`). */
export const SimpleVerifyResponse = z
  .object({
    result: z.enum(['MATCH', 'NO_MATCH', 'PARTIAL_MATCH', 'ERROR']),
    confidence: z.enum(['HIGH', 'MEDIUM', 'LOW']),
    suggested_name: z.string().optional(),
    reason: z.string().optional(),
  })
  .openapi('SimpleVerifyResponse');
export type SimpleVerifyResponse = z.infer<typeof SimpleVerifyResponse>;
