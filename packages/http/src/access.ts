import type { RequestHandler } from 'express';
import { errors } from './errors.js';
import { type Principal, principalOf } from './principal.js';
import { requestFamily } from './request-family.js';
import { isUncovered, type Access } from './route-families.js';

export function isAdmin(principal: Principal | undefined): boolean {
  return principal?.kind === 'certificate' && principal.admin;
}

function mayWriteAccountRecords(principal: Principal | undefined): boolean {
  if (principal === undefined) return false;
  return principal.kind === 'certificate' ? principal.admin : principal.scopes.includes('accounts');
}

function mayReadAnalytics(principal: Principal | undefined): boolean {
  if (principal === undefined) return false;
  return principal.kind === 'certificate'
    ? principal.admin
    : principal.scopes.includes('analytics');
}

const adminRequired = () => errors.accessDenied('The admin certificate is required');

/**
 * Where a request arrived: the public edge (mutual TLS, keys), or a service's internal listener, never
 * published, reached by the edge's forwarder with a signed principal and by the deployment's scraper.
 */
export type Listener = 'edge' | 'internal';

/** The error for a caller who may not use a family, or undefined when it may. */
export function refusalFor(
  access: Access,
  principal: Principal | undefined,
  listener: Listener = 'edge',
) {
  switch (access) {
    case 'open':
      return undefined;
    case 'nobody':
      return errors.notFound('NOT_FOUND', 'No such endpoint');
    case 'scraper':
      if (listener === 'internal') return undefined;
      return principal?.kind === 'certificate'
        ? undefined
        : errors.unauthorized('A valid client certificate is required');
    // Every non-admin caller, anonymous included, is refused with 403 on management.
    case 'admin':
      return isAdmin(principal) ? undefined : adminRequired();
    case 'participant':
      return principal === undefined ? errors.unauthorized() : undefined;
    case 'participant-certificate':
      // clientCertificateAuth answers a missing or refused certificate with its reason first.
      return principal?.kind === 'certificate'
        ? undefined
        : errors.unauthorized('A valid client certificate is required');
    case 'account-records':
      if (principal === undefined) return errors.unauthorized();
      return mayWriteAccountRecords(principal)
        ? undefined
        : errors.accessDenied(
            'Account records need the admin certificate or a key with the accounts scope',
          );
    case 'analysts':
      if (principal === undefined) return errors.unauthorized();
      return mayReadAnalytics(principal)
        ? undefined
        : errors.accessDenied(
            'Analytics need the admin certificate or a key with the analytics scope',
          );
  }
}

/** Authentication is mandatory where the family says so; a principal without the right gets 403. */
export const authorizeByFamily: RequestHandler = (req, res, next) => {
  next(refusalFor(requestFamily(req, res).access, principalOf(res)));
};

/** The same on a service's internal listener (internal-app.ts). */
export const authorizeInternallyByFamily: RequestHandler = (req, res, next) => {
  next(refusalFor(requestFamily(req, res).access, principalOf(res), 'internal'));
};

/**
 * First at every listener, before authentication and before any router: a request no row of the
 * route-family table covers, or spelt other than canonically (path-form.ts), is 404 (route-families.ts
 * says in which format).
 */
export const refuseUncovered: RequestHandler = (req, res, next) => {
  next(
    isUncovered(requestFamily(req, res))
      ? errors.notFound('NOT_FOUND', 'No such endpoint')
      : undefined,
  );
};
