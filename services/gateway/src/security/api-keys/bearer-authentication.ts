import type { RequestHandler } from 'express';
import { ApiError, canonicalPath } from '../../http/errors.js';
import { principalOf, setPrincipal } from '../principal.js';
import { type ApiKeyScope, type KeyEnvironment, environmentOfSecret } from './api-key-secret.js';
import type { ApiKeyStore } from './api-key-store.js';

export const unauthorized = (message = 'A valid credential is required'): ApiError => new ApiError(401, 'UNAUTHORIZED', message);
export const accessDenied = (message = 'This credential may not use this endpoint'): ApiError => new ApiError(403, 'ACCESS_DENIED', message);

/** Design §6: keys are accepted on the /api/* and /verify* families; /vop/* needs the certificate. */
export function acceptsApiKeys(path: string): boolean {
  return /^\/(api\/|verify)/.test(canonicalPath(path));
}

function scopeFor(path: string): ApiKeyScope {
  return /^\/api\/accounts/.test(canonicalPath(path)) ? 'accounts' : 'verify';
}

/**
 * Sets the Principal from `Authorization: Bearer vop_…` on key-accepting paths. A presented key that is
 * unknown, revoked or of the other environment is refused (401) even beside a client certificate; a key
 * without the path's scope is 403.
 */
export function bearerAuthentication(options: { keys: ApiKeyStore; environment: KeyEnvironment }): RequestHandler {
  return (req, res, next) => {
    if (!acceptsApiKeys(req.path)) return next();
    const header = req.get('authorization');
    if (header === undefined) return next();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return next(unauthorized('The Authorization header must be "Bearer <api key>"'));
    const secret = match[1] as string;
    if (environmentOfSecret(secret) !== options.environment) return next(unauthorized('The API key is not valid for this environment'));
    options.keys
      .findActive(secret)
      .then((key) => {
        if (!key || key.environment !== options.environment) return next(unauthorized('The API key is not valid'));
        if (!key.scopes.includes(scopeFor(req.path))) return next(accessDenied('The API key lacks the scope for this endpoint'));
        // A caller that also presented a client certificate stays identified by it.
        if (principalOf(res)) return next();
        setPrincipal(res, { kind: 'api-key', keyId: key.keyId, environment: key.environment, scopes: key.scopes, participantId: key.participantId });
        next();
      })
      .catch(next);
  };
}
