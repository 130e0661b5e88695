import type { RequestHandler } from 'express';
import { canonicalPath } from '../../http/errors.js';
import { principalOf } from '../principal.js';
import { unauthorized } from './bearer-authentication.js';

const OPEN_PATHS = /^\/(livez|readyz|health|metrics)$/;

/** Refuses callers with no principal of any kind (client certificate or API key); ops probes stay open. */
export const requirePrincipal: RequestHandler = (req, res, next) => {
  if (principalOf(res) || OPEN_PATHS.test(canonicalPath(req.path))) return next();
  next(unauthorized());
};
