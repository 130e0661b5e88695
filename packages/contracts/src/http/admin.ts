import { OneLineText } from '../identifiers.js';
import { z } from '../zod.js';

/** Scopes an API key can carry (services/gateway/src/security/api-keys; the route-family table names which family takes which). */
export const API_KEY_SCOPE_NAMES = ['verify', 'accounts', 'analytics'] as const;

export const IssueApiKeyRequest = z
  .strictObject({
    participantId: OneLineText(100),
    scopes: z.array(z.enum(API_KEY_SCOPE_NAMES)).min(1),
    environment: z.enum(['test', 'live']).optional(),
  })
  .openapi('IssueApiKeyRequest');

export const IssuedApiKey = z
  .looseObject({ keyId: z.string(), secret: z.string() })
  .openapi('IssuedApiKey');

export const ApiKeyList = z
  .object({ keys: z.array(z.looseObject({ keyId: z.string() })) })
  .openapi('ApiKeyList');

export const AuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
});

export const AuditPage = z
  .looseObject({ entries: z.array(z.looseObject({})) })
  .openapi('AuditPage');
