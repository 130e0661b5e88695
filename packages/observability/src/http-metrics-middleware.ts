import type { ServiceMetrics } from './service-metrics.js';

/** The parts of an Express request the middleware reads; a plain node:http request fits as well. */
export interface HttpRequestLike {
  method?: string;
  originalUrl?: string;
  baseUrl?: string;
  route?: { path?: unknown } | undefined;
}

/** The parts of an Express or node:http response the middleware reads. */
export interface HttpResponseLike {
  statusCode: number;
  writableFinished?: boolean;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

export type NextFunction = (error?: unknown) => void;

export const UNMATCHED_ROUTE = 'unmatched';
/** nginx's code for a request the client gave up on before the response was complete. */
export const CLIENT_CLOSED_REQUEST = '499';

const NANOSECONDS_PER_SECOND = 1e9;

/**
 * Counts and times every request by method, route template and status code. The route label is read when the
 * response finishes, from the Express route that handled it (mount path + template such as /v1/verify/:id), so
 * raw ids never become label values; requests no route matched are labelled "unmatched". Routers must be mounted
 * on fixed paths, since baseUrl is the matched path and would carry ids from a parameterised mount path.
 */
export function httpMetricsMiddleware(
  metrics: ServiceMetrics,
  options: {
    /** A label for requests no local route handled, e.g. those the edge forwarded; else "unmatched". */
    labelUnmatched?: (req: HttpRequestLike) => string | undefined;
  } = {},
): (req: HttpRequestLike, res: HttpResponseLike, next: NextFunction) => void {
  return (req, res, next) => {
    trackMatchedRoute(req);
    const startedAt = process.hrtime.bigint();
    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      const labels = {
        method: (req.method ?? 'UNKNOWN').toUpperCase(),
        route: matchedRouteLabel(req, options.labelUnmatched),
        status_code:
          res.writableFinished === false ? CLIENT_CLOSED_REQUEST : String(res.statusCode),
      };
      metrics.httpRequestsTotal.inc(labels);
      metrics.httpRequestDuration.observe(
        labels,
        Number(process.hrtime.bigint() - startedAt) / NANOSECONDS_PER_SECOND,
      );
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

const MATCHED_ROUTE = Symbol('matchedRoute');
type Tracked = HttpRequestLike & { [MATCHED_ROUTE]?: { label?: string } };

/**
 * Remembers the whole template (mount path + route) at the moment Express matches a route. Express
 * restores `baseUrl` when a router passes an error on, so by the time an error handler answers (a
 * 404 for an unknown id) only the route's own part (`/verify/:requestId`) would be left.
 */
export function trackMatchedRoute(req: HttpRequestLike): void {
  const tracked = req as Tracked;
  if (tracked[MATCHED_ROUTE] !== undefined) return;
  const matched: { label?: string } = {};
  tracked[MATCHED_ROUTE] = matched;
  let route = req.route;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (value: HttpRequestLike['route']) => {
      route = value;
      if (routeTemplate(value?.path) !== undefined) matched.label = routeLabel(req);
    },
  });
}

/**
 * For a route found without Express's router (packages/http/src/direct-routes.ts): its template, set
 * before the edge's middlewares run, so trackMatchedRoute leaves the request's shape alone.
 */
export function labelMatchedRoute(req: HttpRequestLike, label: string): void {
  (req as Tracked)[MATCHED_ROUTE] = { label };
}

/** The whole template of the route that handled the request (see trackMatchedRoute), else routeLabel. */
export function matchedRouteLabel(
  req: HttpRequestLike,
  labelUnmatched?: (req: HttpRequestLike) => string | undefined,
): string {
  return (req as Tracked)[MATCHED_ROUTE]?.label ?? routeLabel(req, labelUnmatched);
}

export function routeLabel(
  req: HttpRequestLike,
  labelUnmatched?: (req: HttpRequestLike) => string | undefined,
): string {
  const template = routeTemplate(req.route?.path);
  if (template === undefined) return labelUnmatched?.(req) ?? UNMATCHED_ROUTE;
  const base = typeof req.baseUrl === 'string' ? req.baseUrl : '';
  if (base !== '' && template === '/') return base;
  return base + template || '/';
}

function routeTemplate(path: unknown): string | undefined {
  if (typeof path === 'string') return path;
  if (path instanceof RegExp) return path.toString();
  if (Array.isArray(path)) return path.map((entry) => routeTemplate(entry) ?? '').join('|');
  return undefined;
}
