import { AsyncResource } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { refuseDeepJson } from './hostile-input.js';

/** A Content-Type this reader takes itself: JSON, without a charset or in UTF-8. */
const PLAIN_JSON_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** A body this reader takes itself: plain JSON of a known length within the limit, not compressed. */
function isPlainJsonBody(req: IncomingMessage, limitBytes: number): number | undefined {
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return undefined;
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_JSON_TYPE.test(type)) return undefined;
  const length = Number(headers['content-length']);
  if (!Number.isInteger(length) || length <= 0 || length > limitBytes) return undefined;
  if (!req.readable || req.readableEnded) return undefined;
  return length;
}

/** An error body-parser would have raised, typed so the app's error handler answers it the same way. */
function bodyError(error: Error, type: string, status: number): Error {
  return Object.assign(error, { type, status });
}

/** JSON.parse as body-parser's strict mode does it: an object or an array, a leading BOM dropped. */
function parseStrictJson(raw: Buffer): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[')
    throw new SyntaxError('JSON body must be an object or an array');
  return JSON.parse(text) as unknown;
}

/**
 * Reads a plain JSON body (application/json in UTF-8 or without a charset, a Content-Length within
 * `limitBytes`, no Content-Encoding) itself, and hands every other body to `fallback` (body-parser),
 * which inflates, decodes other charsets, reads chunked bodies and refuses what it refuses. The same
 * checks and the same errors as body-parser's: nested too deep (hostile-input.ts), not strict JSON,
 * cut off. Why: body-parser's read (raw-body, its async resource, iconv-lite's decoder) cost the hot
 * route more than the body's parse (bench/RESULTS.md §1, 2026-11-28 04:04).
 */
export function jsonBodyReader(options: {
  limitBytes: number;
  fallback: RequestHandler;
}): RequestHandler {
  const { limitBytes, fallback } = options;
  return (req, res, nextHere) => {
    const length = isPlainJsonBody(req, limitBytes);
    if (length === undefined) return fallback(req, res, nextHere);
    // The body's events come in the socket's async context: the route runs in the request's (its trace).
    const next = AsyncResource.bind(nextHere);
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    };
    // The error listener stays after the body ended: a reset arriving later is not left unhandled.
    const onError = (error: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      next(bodyError(error, 'request.aborted', 400));
    };
    const onEnd = () => {
      settled = true;
      req.off('data', onData);
      if (received !== length)
        return next(
          bodyError(
            new Error('request size did not match content length'),
            'request.size.invalid',
            400,
          ),
        );
      const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
      try {
        refuseDeepJson(req, res, raw);
      } catch (error) {
        return next(error);
      }
      try {
        req.body = parseStrictJson(raw);
      } catch (error) {
        return next(bodyError(error as Error, 'entity.parse.failed', 400));
      }
      next();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.on('error', onError);
    // Closed before its end without an error: the client went away mid-body.
    req.once('close', () => onError(new Error('request aborted')));
  };
}
