import type { RequestHandler } from 'express';
import { accessDenied } from '../security/api-keys/bearer-authentication.js';
import { principalOf } from '../security/principal.js';

/** Management needs the admin certificate; every other caller gets 403 ACCESS_DENIED (flat on /admin/*). */
export const requireAdminCertificate: RequestHandler = (_req, res, next) => {
  const principal = principalOf(res);
  if (principal?.kind === 'certificate' && principal.admin) return next();
  next(accessDenied('The admin certificate is required'));
};
