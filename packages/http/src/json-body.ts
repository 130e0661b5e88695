import { AsyncResource } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import { errors } from './errors.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH, tooDeep } from './hostile-input.js';

/** The Content-Types the plain reader takes; any other goes to body-parser (a charset to check). */
const PLAIN_JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Reads a JSON body as body-parser's `json()` with `strict` and our depth check would, for the body
 * nearly every request sends: a Content-Length within `limitBytes`, no Content-Encoding, and
 * `application/json` in UTF-8. Every other body (compressed, chunked, another charset or type, over
 * the limit, empty) goes to `fallback`, body-parser itself, with its own errors.
 *
 * Why: body-parser parses the Content-Type twice, builds an iconv decoder and a raw-body reader per
 * request; through the edge alone it halved the answers per second against this reader (`pnpm
 * bench:edge`, bench/RESULTS.md §1, 2026-11-28 17:10).
 *
 * Kept from body-parser: the request's async context continues after the read; a body already read
 * is left alone; a UTF-8 byte-order mark is dropped; bytes that are not UTF-8 become U+FFFD (refused
 * afterwards by refuseUnsafeStrings); a body that is not an object or array, or not JSON, is the
 * malformed-JSON error; one nested deeper than MAX_JSON_DEPTH is refused before JSON.parse builds it.
 */
export function jsonBody(options: {
  limitBytes: number;
  fallback: RequestHandler;
}): RequestHandler {
  const { limitBytes, fallback } = options;
  return (req, res, next) => {
    if (req.readableEnded) return next();
    const length = Number(req.headers['content-length']);
    const contentType = req.headers['content-type']?.toLowerCase();
    if (
      !(length > 0 && length <= limitBytes) ||
      req.headers['content-encoding'] !== undefined ||
      req.headers['transfer-encoding'] !== undefined ||
      contentType === undefined ||
      !PLAIN_JSON_TYPES.has(contentType)
    )
      return fallback(req, res, next);
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      next(error);
    };
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', () => settle(errors.unreadable()));
    // Bound to the middleware's async context: 'end' comes from the socket's, and the rest of the
    // request (its trace context, packages/observability/src/tracing.ts) must run in the request's.
    req.once(
      'end',
      AsyncResource.bind(() => {
        if (settled) return;
        const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) return settle(tooDeep());
        const bom = UTF8_BOM.every((byte, index) => raw[index] === byte);
        const text = raw.toString('utf8', bom ? UTF8_BOM.length : 0);
        const first = text.trimStart()[0];
        if (first !== '{' && first !== '[') return settle(errors.malformedJson());
        try {
          req.body = JSON.parse(text) as unknown;
        } catch {
          return settle(errors.malformedJson());
        }
        settle();
      }),
    );
  };
}
