import type { z } from '@vop/contracts';
import { ApiError } from './errors.js';

/** Reasons a contract names in its refinements, passed on as they are. */
const KNOWN_REASONS = new Set(['NON_LATIN_CHARACTERS', 'EMPTY_FIELD', 'INVALID_IDENTIFICATION']);

/** Reasons a field can fail, named as the scheme's details.reason (VOP_004). */
function reasonFor(issue: z.core.$ZodIssue): { code: string; reason: string } {
  if (
    (issue.code === 'invalid_type' && issue.input === undefined) ||
    issue.message === 'MISSING_FIELD'
  )
    return { code: 'MISSING_FIELD', reason: 'MISSING_FIELD' };
  if (issue.code === 'unrecognized_keys')
    return { code: 'INVALID_REQUEST', reason: 'UNKNOWN_FIELD' };
  const message = issue.message;
  if (message === 'INVALID_IBAN' || message === 'INVALID_BIC' || message === 'INVALID_LEI')
    return { code: message, reason: message };
  if (KNOWN_REASONS.has(message)) return { code: 'INVALID_REQUEST', reason: message };
  if (issue.code === 'too_small' && issue.minimum === 1)
    return { code: 'INVALID_REQUEST', reason: 'EMPTY_FIELD' };
  if (issue.code === 'invalid_type') return { code: 'INVALID_REQUEST', reason: 'INVALID_TYPE' };
  return { code: 'INVALID_REQUEST', reason: 'INVALID_VALUE' };
}

function fieldOf(issue: z.core.$ZodIssue): string {
  const segments = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') segments.push(issue.keys[0] ?? '');
  return segments.join('.') || 'body';
}

/** Parses with the contract; the first issue becomes a 400 naming the field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(400, 'INVALID_REQUEST', 'Request body must be a JSON object', {
      reason: 'INVALID_TYPE',
      field: 'body',
    });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const field = fieldOf(issue);
  const { code, reason } = reasonFor(issue);
  const message =
    code === 'MISSING_FIELD'
      ? `Missing required field: ${field}`
      : reason === 'UNKNOWN_FIELD'
        ? `Unknown field: ${field}`
        : code === 'INVALID_IBAN'
          ? `Invalid IBAN in field: ${field}`
          : `Invalid value for field: ${field}`;
  throw new ApiError(400, code, message, { field, reason });
}

export function parseParam<S extends z.ZodType>(
  schema: S,
  value: unknown,
  onInvalid: () => ApiError,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw onInvalid();
  return result.data;
}
