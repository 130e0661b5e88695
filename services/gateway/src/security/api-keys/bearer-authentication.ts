import type { RequestHandler } from 'express';
import { errors, principalOf, requestFamily, setPrincipal } from '@vop/http';
import { type KeyEnvironment, environmentOfSecret } from './api-key-secret.js';
import type { ApiKeyStore } from './api-key-store.js';

/**
 * Sets the Principal from `Authorization: Bearer vop_…` on the families that accept keys (the route-family
 * table's apiKeyScope). A presented key that is unknown, revoked or of the other environment is refused
 * (401) even beside a client certificate; a key without the family's scope is 403.
 */
export function bearerAuthentication(options: {
  keys: ApiKeyStore;
  environment: KeyEnvironment;
}): RequestHandler {
  return (req, res, next) => {
    const scope = requestFamily(req, res).apiKeyScope;
    if (scope === null) return next();
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
        // A caller that also presented a client certificate stays identified by it.
        if (principalOf(res)) return next();
        const { keyId, environment, scopes, participantId } = key;
        setPrincipal(res, { kind: 'api-key', keyId, environment, scopes, participantId });
        next();
      })
      .catch(next);
  };
}
