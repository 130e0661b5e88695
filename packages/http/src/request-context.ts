import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { activeTraceparent, requestTraceparent } from '@vop/observability';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-ID when it is a plain token, else one of ours. */
export function correlationIdOf(req: Request): string {
  const header = req.get('x-request-id');
  return header && SAFE_ID.test(header) ? header : randomUUID();
}

/** Event metadata carried from the HTTP request into the events it causes. */
export function requestMetadata(req: Request): Record<string, string> {
  const metadata: Record<string, string> = { correlationId: correlationIdOf(req) };
  // The request's SERVER span when tracing runs, else the caller's own traceparent.
  const traceparent = requestTraceparent(req) ?? activeTraceparent() ?? req.get('traceparent');
  if (traceparent && /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(traceparent))
    metadata.traceparent = traceparent;
  return metadata;
}
