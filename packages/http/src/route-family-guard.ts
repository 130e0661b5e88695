import type { Express, RequestHandler } from 'express';
import type { Logger } from '@vop/observability';
import { isStaticTemplate } from './allowed-methods.js';
import { errors } from './errors.js';
import { requestFamily } from './request-family.js';
import { type MountedRoute, templateMatcher, walkRouters } from './route-coverage.js';

const VERIFIED = Symbol('route-spelling-verified');

/**
 * Makes the table and the routers one matcher (issue 39), at start:
 *
 * - every mounted router must match case-sensitively and strictly, as the route-family table does
 *   (`createRouter`); an app with any other router refuses to start;
 * - every route's handlers run only for the path the route spells: the request's whole path, as sent,
 *   must match one of its templates as written in the code (under each mount it is reached through),
 *   case-sensitively and exactly, a parameter standing for one segment;
 * - a path that a template without parameters spells is that resource only: a route with a parameter
 *   in its place does not take it (`DELETE /webhooks/:webhookId` is not `/webhooks/dead-letters`), so
 *   another method there is 405 with `Allow` (allowed-methods.ts).
 *   The request's family is the family of that path (request-family.ts), so a handler is never reached
 *   under a family other than its own, whatever Express's matcher does; a mismatch is 404 and logged.
 *
 * Routes served past Express (direct-routes.ts) are looked up by their exact path and need no guard.
 */
export function guardRoutesByFamily(app: Express, logger: Logger): void {
  const guarded = new WeakSet<MountedRoute>();
  const spellings = new Map<MountedRoute, string[]>();
  walkRouters(app, {
    onRouter: (router, prefix) => {
      if (router.caseSensitive !== true || router.strict !== true)
        throw new Error(
          `The router mounted at ${prefix || '/'} is not case-sensitive and strict: build it with createRouter() from @vop/http`,
        );
    },
    onRoute: (route, templates) => {
      spellings.set(route, [...(spellings.get(route) ?? []), ...templates]);
    },
  });
  const staticPaths = new Set([...spellings.values()].flat().filter(isStaticTemplate));
  for (const [route, templates] of spellings) {
    if (guarded.has(route)) continue;
    guarded.add(route);
    const matchers = templates.map(templateMatcher);
    const spells = (path: string): boolean => matchers.some((matches) => matches(path));
    const guard: RequestHandler = (req, res, next) => {
      const locals = res.locals as Record<symbol, boolean | undefined>;
      if (locals[VERIFIED]) return next();
      const path = req.originalUrl.split('?')[0] ?? '/';
      if (staticPaths.has(path) && !templates.includes(path)) return next('route');
      if (spells(path)) {
        locals[VERIFIED] = true;
        return next();
      }
      logger.error(
        { family: requestFamily(req, res).name, route: templates[0] },
        'a route was reached by a path it does not spell: refused',
      );
      next(errors.notFound('NOT_FOUND', 'No such endpoint'));
    };
    for (const layer of route.stack) {
      const handle = layer.handle;
      if (handle.length > 3) continue; // an error handler: reached only after a request handler
      // Returns what the handler returns: Express 5 catches a rejected promise from it.
      layer.handle = function guardedHandle(req, res, next) {
        let result: unknown;
        guard(req, res, (error?: unknown) => {
          result = error === undefined ? handle(req, res, next) : next(error);
        });
        return result;
      } as RequestHandler;
    }
  }
}
