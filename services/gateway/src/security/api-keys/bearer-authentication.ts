import type { RequestHandler } from 'express';
import { errors, principalOf, requestFamily, setPrincipal } from '@vop/http';
import { type KeyEnvironment, environmentOfSecret } from './api-key-secret.js';
import type { ApiKeyStore } from './api-key-store.js';

/**
 * Sets the Principal from `Authorization: Bearer vop_…` on the families that accept keys (the route-family
 * table's apiKeyScope). One credential identifies a request: a valid client certificate, when the
 * connection presented one, and the key otherwise. A key beside a valid certificate is not read (a
 * certificate belongs to the connection, which a client shares between its requests, so it cannot
 * leave it off for one of them). Alone, a key that is unknown, revoked or of the other environment is
 * 401; a key without the family's scope is 403.
 */
export function bearerAuthentication(options: {
  keys: ApiKeyStore;
  environment: KeyEnvironment;
}): RequestHandler {
  return (req, res, next) => {
    const scope = requestFamily(req, res).apiKeyScope;
    if (scope === null) return next();
    if (principalOf(res)?.kind === 'certificate') return next();
    const header = req.get('authorization');
    if (header === undefined) return next();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match)
      return next(errors.unauthorized('The Authorization header must be "Bearer <api key>"'));
    const secret = match[1] as string;
    if (environmentOfSecret(secret) !== options.environment) {
      return next(errors.unauthorized('The API key is not valid for this environment'));
    }
    options.keys
      .findActive(secret)
      .then((key) => {
        if (!key || key.environment !== options.environment)
          return next(errors.unauthorized('The API key is not valid'));
        if (!key.scopes.includes(scope))
          return next(errors.accessDenied('The API key lacks the scope for this endpoint'));
        const { keyId, environment, scopes, participantId } = key;
        setPrincipal(res, { kind: 'api-key', keyId, environment, scopes, participantId });
        next();
      })
      .catch(next);
  };
}
