/*
 * Input no route should ever see (issues 11 and 39, found by fuzzing and probing): characters
 * PostgreSQL refuses, that mean a broken client, or that spoof a name on a page or in a CSV file
 * (`hasUnsafeCharacter`, in @vop/contracts: the name contracts refuse the same); JSON nested deeper
 * than any contract; a key twice in one JSON object, which a proxy reading the first value and a
 * service acting on the last would understand differently. Each is a 400 naming the field, decided
 * before a route runs.
 */
import type { IncomingMessage } from 'node:http';
import { hasUnsafeCharacter } from '@vop/contracts';
import type { RequestHandler } from 'express';
import { ApiError } from './errors.js';
import { scanJson } from './json-scan.js';

export { hasUnsafeCharacter };

export const MAX_JSON_DEPTH = 32;

/**
 * body-parser's `verify` hook: refuses a body before JSON.parse builds it when it is not UTF-8 (what
 * the scan reads; RFC 8259 §8.1), nests too deep, or holds a key twice in one object. body-parser
 * wraps what it throws; the app's error handler recognises the type.
 */
export function refuseDeepJson(
  _req: IncomingMessage,
  _res: unknown,
  raw: Buffer,
  encoding?: string | null,
): void {
  if (typeof encoding === 'string' && encoding !== 'utf-8')
    throw Object.assign(new Error('JSON is read as UTF-8 only'), { type: 'charset.unsupported' });
  const hazard = scanJson(raw, MAX_JSON_DEPTH);
  if (hazard === undefined) return;
  if ('tooDeep' in hazard)
    throw Object.assign(new Error('JSON nested too deep'), { type: 'entity.too.deep' });
  const field = hazard.duplicateKey.join('.');
  throw Object.assign(new Error('A key twice in one JSON object'), {
    type: 'entity.duplicate.key',
    refusal: new ApiError(400, 'INVALID_REQUEST', `Duplicate key in the JSON body: ${field}`, {
      field,
      reason: 'DUPLICATE_KEY',
    }),
  });
}

/**
 * What one JSON text read by a streamed upload (an NDJSON line) holds that a JSON body may not: nesting
 * deeper than MAX_JSON_DEPTH, or a key twice in one object (with the key's path). The same scan as the
 * edge's, so an upload's line is judged as a body is.
 */
export function jsonTextHazard(
  raw: Buffer,
): { reason: 'TOO_DEEP' } | { reason: 'DUPLICATE_KEY'; path: string } | undefined {
  const hazard = scanJson(raw, MAX_JSON_DEPTH);
  if (hazard === undefined) return undefined;
  return 'tooDeep' in hazard
    ? { reason: 'TOO_DEEP' }
    : { reason: 'DUPLICATE_KEY', path: hazard.duplicateKey.join('.') };
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
 * object), it was a noticeable share of what the gateway's request thread allocated per check
 * (bench/RESULTS.md §1).
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
