import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { errors } from './errors.js';
import { type Principal, setPrincipal } from './principal.js';
import { refusalFor } from './access.js';
import { requestFamily } from './request-family.js';

export const PRINCIPAL_HEADER = 'x-vop-principal';
export const PRINCIPAL_SIGNATURE_HEADER = 'x-vop-principal-signature';

/** How long a forwarded principal stays valid: the edge signs each request as it forwards it. */
const MAX_AGE_MS = 30_000;

interface SignedPrincipal {
  principal: Principal | null;
  issuedAt: number;
}

function signature(payload: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(payload, 'utf8').digest();
}

/**
 * The headers the edge adds to a forwarded request: the principal it authenticated, signed with the
 * deployment's internal secret (VOP_INTERNAL_SECRET), so a caller who reaches an internal listener
 * directly cannot claim to be someone else.
 */
export function principalHeaders(
  principal: Principal | undefined,
  secret: string,
  now: Date,
): Record<string, string> {
  const signed: SignedPrincipal = { principal: principal ?? null, issuedAt: now.getTime() };
  const payload = Buffer.from(JSON.stringify(signed), 'utf8').toString('base64url');
  return {
    [PRINCIPAL_HEADER]: payload,
    [PRINCIPAL_SIGNATURE_HEADER]: signature(payload, secret).toString('base64url'),
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The principal the edge vouched for, or undefined when the headers are missing, forged or stale. */
export function verifyPrincipalHeaders(
  headers: IncomingHttpHeaders,
  secret: string,
  now: Date,
): SignedPrincipal | undefined {
  const payload = single(headers[PRINCIPAL_HEADER]);
  const presented = single(headers[PRINCIPAL_SIGNATURE_HEADER]);
  if (payload === undefined || presented === undefined) return undefined;
  const expected = signature(payload, secret);
  const given = Buffer.from(presented, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const signed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SignedPrincipal;
  if (Math.abs(now.getTime() - signed.issuedAt) > MAX_AGE_MS) return undefined;
  return signed;
}

/**
 * On an internal listener (a service's own routes, behind the edge): every request but those its
 * family lets anyone make there (the probes, the scraper's /metrics: access.ts) must carry a principal
 * signed by the edge; it is set as the request's principal.
 */
export function trustedPrincipal(options: { secret: string; now?: () => Date }): RequestHandler {
  const now = options.now ?? (() => new Date());
  return (req, res, next) => {
    if (refusalFor(requestFamily(req, res).access, undefined, 'internal') === undefined)
      return next();
    const signed = verifyPrincipalHeaders(req.headers, options.secret, now());
    if (signed === undefined)
      return next(errors.unauthorized('Internal listener: requests come through the edge'));
    if (signed.principal !== null) setPrincipal(res, signed.principal);
    next();
  };
}
