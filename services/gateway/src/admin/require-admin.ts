import type { RequestHandler } from 'express';
import { toErrorBody } from '../http/errors.js';
import { accessDenied } from '../security/api-keys/bearer-authentication.js';
import { isAdmin } from '../security/authorization.js';
import { principalOf } from '../security/principal.js';

const adminRequired = () => accessDenied('The admin certificate is required');

/** Management needs the admin certificate; every other caller gets 403 ACCESS_DENIED (flat on /admin/*). */
export const requireAdminCertificate: RequestHandler = (_req, res, next) => {
  if (isAdmin(principalOf(res))) return next();
  next(adminRequired());
};

/**
 * The same guard for management paths outside /admin/* (GET /health/detailed), whose path format is not flat:
 * issue 4 wants the flat ACCESS_DENIED on every management endpoint.
 */
export const requireAdminCertificateFlat: RequestHandler = (req, res, next) => {
  if (isAdmin(principalOf(res))) return next();
  const body = toErrorBody(adminRequired(), { format: 'flat', respondingPsp: String(res.locals.respondingPsp), requestId: req.get('x-request-id') });
  res.status(403).json(body);
};
