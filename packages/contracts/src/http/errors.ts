import { z } from '../zod.js';

/** Format 1 (nested): /accounts, /api/accounts*, /webhooks, /analytics/*, /account/*, /test/*. */
export const NestedError = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi('NestedError');

/** Format 2 (flat): /verify*, /api/verify*, /api/v1/*, /admin/*. */
export const FlatError = z
  .object({
    error: z.string(),
    message: z.string(),
    field: z.string().optional(),
    retry_after: z.number().int().optional(),
    action: z.string().optional(),
  })
  .openapi('FlatError');

/** Format 3 (scheme): /vop/*. */
export const SchemeError = z
  .object({
    errorReference: z.string(),
    timestamp: z.iso.datetime(),
    error: z.object({
      code: z.enum(['VOP_001', 'VOP_002', 'VOP_003', 'VOP_004', 'VOP_005']),
      category: z.string(),
      message: z.string(),
      details: z.object({ field: z.string().optional(), reason: z.string().optional() }).optional(),
    }),
    metadata: z.object({ respondingPSP: z.string(), originalRequest: z.string() }),
  })
  .openapi('SchemeError');
