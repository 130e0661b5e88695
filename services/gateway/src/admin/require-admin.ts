import type { RequestHandler } from 'express';
import { accessDenied } from '../security/api-keys/bearer-authentication.js';
import { isAdmin } from '../security/authorization.js';
import { principalOf } from '../security/principal.js';

const adminRequired = () => accessDenied('The admin certificate is required');

/** Management needs the admin certificate; every other caller gets 403 ACCESS_DENIED (flat on management paths). */
export const requireAdminCertificate: RequestHandler = (_req, res, next) => {
  if (isAdmin(principalOf(res))) return next();
  next(adminRequired());
};
