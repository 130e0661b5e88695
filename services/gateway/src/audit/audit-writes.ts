import type { RequestHandler } from 'express';
import { canonicalPath, requestFamily } from '@vop/http';
import type { Logger } from '@vop/observability';
import { auditActorOf } from './actor.js';
import type { AuditLog } from './audit-log.js';

const AUDITED = Symbol('audited');

/** For handlers that write their own audit entry (in their own transaction): the generic one is skipped. */
export function markAudited(locals: Record<string, unknown>): void {
  (locals as Record<symbol, unknown>)[AUDITED] = true;
}

/**
 * At the edge, before authorization: every write to an audited family (management), denied, failed and
 * forwarded attempts included, leaves an audit entry once answered, unless its handler recorded its own.
 * The operation names the route template when one matched, else the path.
 */
export function auditWrites(options: { audit: AuditLog; logger: Logger }): RequestHandler {
  return (req, res, next) => {
    const family = requestFamily(req, res);
    const read = req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS';
    if (read && !family.auditReads) return next();
    if (!family.audited) return next();
    res.once('finish', () => {
      if ((res.locals as Record<symbol, unknown>)[AUDITED]) return;
      const route =
        (req.route as { path?: string } | undefined)?.path ??
        canonicalPath(req.originalUrl.split('?')[0] ?? '/');
      options.audit
        .append({
          operation: `${req.method} ${route}`,
          user: auditActorOf(res),
          result: res.statusCode < 400 ? 'success' : 'failure',
          status: res.statusCode,
        })
        .catch((error: unknown) =>
          options.logger.error({ err: error }, 'audit entry could not be written'),
        );
    });
    next();
  };
}
