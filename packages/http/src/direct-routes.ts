import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import { labelMatchedRoute } from '@vop/observability';
import { errors } from './errors.js';

/**
 * A route the app serves without Express's router when the request is exactly `method path` at the
 * root, with no query string: the edge's middlewares, in the app's order, then the handler. It is
 * mounted in its router as well, which serves its other forms (the base paths, a query string).
 */
export interface DirectRoute {
  method: 'POST' | 'GET';
  path: string;
  handler: RequestHandler;
}

/** What Express's `app.handle` is; its type declarations leave it out. */
type HandleFunction = (req: Request, res: Response, callback?: (error?: unknown) => void) => void;

/**
 * Serves `routes` through `chain` and the handler without the router's walk: the router, Express and
 * their `debug` calls were ~7.5 % of the distributed gateway's request thread at 1,000 checks/s
 * (bench/RESULTS.md §1). Everything else goes to Express as before.
 *
 * What Express's `app.handle` and router set up for a handler is set up here too: the circular
 * references, the app's prototypes (born with them, express-prototypes.ts), `res.locals`,
 * `originalUrl`, `baseUrl`, `params`, `route` and `next`. A step's thrown error or rejected promise
 * goes to `handleError`, as in Express 5.
 */
export function serveDirectRoutes(
  app: Express,
  options: { chain: RequestHandler[]; handleError: ErrorRequestHandler; routes: DirectRoute[] },
): void {
  const { chain, handleError } = options;
  if (chain.some((step) => step.length > 3))
    throw new TypeError('The direct chain takes request handlers, not error handlers');
  const routes = new Map(
    options.routes.map((route) => [
      `${route.method} ${route.path}`,
      {
        steps: [...chain, route.handler],
        // What Express's Route is to the middlewares that read `req.route` (metrics, audit).
        record: { path: route.path, methods: { [route.method.toLowerCase()]: true } },
      },
    ]),
  );
  const expressApp = app as unknown as { handle: HandleFunction };
  const handleByExpress = expressApp.handle.bind(app);
  expressApp.handle = (req, res, callback) => {
    // An app mounted inside another (originalUrl already set) keeps Express's handling.
    const route =
      req.originalUrl === undefined ? routes.get(`${req.method} ${req.url}`) : undefined;
    if (route === undefined) return handleByExpress(req, res, callback);
    req.res = res;
    res.req = req;
    if (Object.getPrototypeOf(req) !== app.request) Object.setPrototypeOf(req, app.request);
    if (Object.getPrototypeOf(res) !== app.response) Object.setPrototypeOf(res, app.response);
    res.locals ??= Object.create(null) as Response['locals'];
    req.originalUrl = req.url;
    req.baseUrl = '';
    req.params = {};
    labelMatchedRoute(req, route.record.path);
    const { steps } = route;
    let index = 0;
    const fail = (error: unknown): void => {
      void handleError(error, req, res, () => undefined);
    };
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null && error !== 'route' && error !== 'router')
        return fail(error);
      const step = steps[index++];
      if (step === undefined) return fail(errors.notFound('NOT_FOUND', 'No such endpoint'));
      if (index === steps.length) req.route = route.record;
      try {
        const result: unknown = step(req, res, next);
        if (result instanceof Promise)
          result.then(undefined, (rejection: unknown) =>
            next(rejection ?? new Error('Rejected promise')),
          );
      } catch (thrown) {
        next(thrown);
      }
    };
    req.next = next;
    next();
  };
}
