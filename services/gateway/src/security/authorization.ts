import type { RequestHandler } from 'express';
import { canonicalPath } from '../http/errors.js';
import { accessDenied, unauthorized } from './api-keys/bearer-authentication.js';
import { type Principal, principalOf } from './principal.js';

/**
 * What a request needs before it reaches its route:
 * - `open`: ops probes, no credential;
 * - `management`: admin certificate; guarded where the routes are mounted, so denied attempts are audited
 *   and every non-admin caller, anonymous included, gets 403 (issue 4);
 * - `account-records`: the bank's own data (design §4): admin certificate or a key with the accounts scope;
 * - `participant`: any principal (verification and everything else).
 */
export type AccessRule = 'open' | 'management' | 'account-records' | 'participant';

const OPEN_PATHS = /^\/(livez|readyz|health|metrics)$/;
const MANAGEMENT_PATHS = /^\/(admin(\/|$)|health\/detailed$)/;
const ACCOUNT_RECORD_PATHS = /^\/(accounts|api\/accounts)(\/|$)/;

export function accessRuleFor(path: string): AccessRule {
  const canonical = canonicalPath(path);
  if (OPEN_PATHS.test(canonical)) return 'open';
  if (MANAGEMENT_PATHS.test(canonical)) return 'management';
  if (ACCOUNT_RECORD_PATHS.test(canonical)) return 'account-records';
  return 'participant';
}

export function isAdmin(principal: Principal | undefined): boolean {
  return principal?.kind === 'certificate' && principal.admin;
}

export function mayWriteAccountRecords(principal: Principal | undefined): boolean {
  if (principal === undefined) return false;
  return principal.kind === 'certificate' ? principal.admin : principal.scopes.includes('accounts');
}

/** Authentication is mandatory: no principal is 401 in the path's format; a principal without the right is 403. */
export const authorizeRequest: RequestHandler = (req, res, next) => {
  const rule = accessRuleFor(req.path);
  if (rule === 'open' || rule === 'management') return next();
  const principal = principalOf(res);
  if (principal === undefined) return next(unauthorized());
  if (rule === 'account-records' && !mayWriteAccountRecords(principal)) {
    return next(accessDenied('Account records need the admin certificate or a key with the accounts scope'));
  }
  next();
};
