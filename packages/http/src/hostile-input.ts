import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { ApiError } from './errors.js';

/**
 * Input no route should ever see (issue 11, found by fuzzing): characters PostgreSQL refuses or that mean a
 * broken client (NUL and the other control characters but tab and line breaks, U+FFFD where a body's bytes
 * were not UTF-8, unpaired surrogates that jsonb refuses), and JSON nested deeper than any contract. Each
 * is a 400 naming the field, decided before a route runs, so no such input reaches the database as a 500.
 */
export const MAX_JSON_DEPTH = 32;

const UNSAFE_CHARACTER =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFD]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasUnsafeCharacter(value: string): boolean {
  return UNSAFE_CHARACTER.test(value);
}

/** Whether raw JSON opens more than `maxDepth` arrays or objects inside each other; one pass, no parse. */
export function jsonDepthExceeds(raw: Buffer, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index];
    if (inString) {
      if (byte === 0x5c)
        index++; // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

/** body-parser's `verify` hook: refuses a body nested too deep before JSON.parse builds it. */
export function refuseDeepJson(_req: IncomingMessage, _res: unknown, raw: Buffer): void {
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) {
    // body-parser wraps what verify throws; the app's error handler recognises the type.
    throw Object.assign(new Error('JSON nested too deep'), { type: 'entity.too.deep' });
  }
}

export const tooDeep = () =>
  new ApiError(400, 'INVALID_REQUEST', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, {
    field: 'body',
    reason: 'TOO_DEEP',
  });

/**
 * The path of the first string (or key) holding an unsafe character, if any. Depth is bounded by
 * refuseDeepJson. Every request's body passes it, so a clean body allocates nothing: the path is built
 * on the way back from a find. Built on the way down (a key array per level, `Object.entries` per
 * object), it was ~5 % of what the gateway's request thread allocated per check (bench/RESULTS.md §1,
 * 2026-11-28 07:25).
 */
export function unsafeStringPath(value: unknown, depth = 0): string[] | undefined {
  if (typeof value === 'string') return hasUnsafeCharacter(value) ? [] : undefined;
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = unsafeStringPath(value[index], depth + 1);
      if (found) return [String(index), ...found];
    }
    return undefined;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (hasUnsafeCharacter(key)) return [key];
    const found = unsafeStringPath((value as Record<string, unknown>)[key], depth + 1);
    if (found) return [key, ...found];
  }
  return undefined;
}

const unsafe = (field: string) =>
  new ApiError(400, 'INVALID_CHARACTERS', `Control or invalid characters in field: ${field}`, {
    field,
    reason: 'INVALID_CHARACTERS',
  });

/** Refuses unsafe characters in the decoded path, the query and the JSON body, naming where. */
export const refuseUnsafeStrings: RequestHandler = (req, _res, next) => {
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    return next(
      new ApiError(400, 'INVALID_REQUEST', 'The path is not valid percent-encoded UTF-8', {
        field: 'path',
        reason: 'INVALID_CHARACTERS',
      }),
    );
  }
  if (hasUnsafeCharacter(path)) return next(unsafe('path'));
  const inQuery = unsafeStringPath(req.query);
  if (inQuery) return next(unsafe(inQuery.join('.') || 'query'));
  const inBody = unsafeStringPath(req.body);
  if (inBody) return next(unsafe(inBody.join('.') || 'body'));
  next();
};
