import type { z } from '@vop/contracts';
import { ApiError } from './errors.js';

/** Refinement messages that are themselves the error code (flat) and reason (scheme, nested). */
const FIELD_CODES = new Set([
  'INVALID_IBAN',
  'INVALID_BIC',
  'INVALID_LEI',
  'INVALID_SORT_CODE',
  'INVALID_ACCOUNT_NUMBER',
  'INVALID_CHARACTERS',
]);

/** Reasons a contract names in its refinements, passed on as they are (EPC rules). */
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
  // A value of the wrong JSON type (a number where a string belongs) is not a missing field.
  if (issue.code === 'invalid_type') return { code: 'INVALID_TYPE', reason: 'INVALID_TYPE' };
  if (issue.code === 'too_big') return { code: 'INVALID_REQUEST', reason: 'TOO_LONG' };
  const message = issue.message;
  if (FIELD_CODES.has(message)) return { code: message, reason: message };
  if (KNOWN_REASONS.has(message)) return { code: 'INVALID_REQUEST', reason: message };
  if (issue.code === 'too_small' && issue.minimum === 1)
    return { code: 'INVALID_REQUEST', reason: 'EMPTY_FIELD' };
  return { code: 'INVALID_REQUEST', reason: 'INVALID_VALUE' };
}

function fieldOf(issue: z.core.$ZodIssue, indexed: boolean): string {
  const segments: PropertyKey[] = [...issue.path];
  if (issue.code === 'unrecognized_keys') segments.push(issue.keys[0] ?? '');
  if (!indexed) return segments.map(String).join('.') || 'body';
  const path = segments
    .map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`))
    .join('');
  return path.replace(/^\./, '') || 'body';
}

/** A contract's own words for an issue (not a code the error already carries), e.g. "must be …". */
function explanationOf(issue: z.core.$ZodIssue): string | undefined {
  const message = issue.message;
  if (/^[A-Z_]+$/.test(message) || message === 'Invalid input') return undefined;
  return message;
}

export interface ParseBodyOptions {
  /** Array positions as `participants[3].bics[0]` (management files) rather than `participants.3.bics.0`. */
  indexedPaths?: boolean;
  /** The message ends with the contract's or zod's own words on what is wrong. */
  explain?: boolean;
}

/** Parses with the contract; the first issue becomes a 400 naming the field. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  options: ParseBodyOptions = {},
): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(400, 'INVALID_REQUEST', 'Request body must be a JSON object', {
      reason: 'INVALID_TYPE',
      field: 'body',
    });
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  // Again with reportInput, only for the error: zod 4 leaves `input` out of issues otherwise, and a
  // wrong type would read as missing. Asked on every parse, it cost valid requests a third more
  // (bench/RESULTS.md §1).
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const field = fieldOf(issue, options.indexedPaths === true);
  const { code, reason } = reasonFor(issue);
  const explanation = options.explain === true ? explanationOf(issue) : undefined;
  const summary =
    code === 'MISSING_FIELD'
      ? `Missing required field: ${field}`
      : reason === 'UNKNOWN_FIELD'
        ? `Unknown field: ${field}`
        : code === 'INVALID_IBAN'
          ? `Invalid IBAN in field: ${field}`
          : code === 'INVALID_TYPE'
            ? `Wrong type for field: ${field}`
            : reason === 'TOO_LONG'
              ? `Too long: ${field}`
              : `Invalid value for field: ${field}`;
  const message = explanation === undefined ? summary : `${summary}: ${explanation}`;
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
