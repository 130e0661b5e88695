import { randomUUID } from 'node:crypto';
import express, {
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import {
  httpTracingMiddleware,
  matchedRouteLabel,
  requestTraceIds,
  type Logger,
} from '@vop/observability';
import { allowedMethods } from './allowed-methods.js';
import { BASE_PATHS, canonicalPath } from './base-paths.js';
import { serveDirectRoutes, type DirectRoute } from './direct-routes.js';
import { OutageLog, unreachableDependency } from './dependency-outage.js';
import { ApiError, errors, statusIn, toErrorBody } from './errors.js';
import { refuseUncovered } from './access.js';
import { isPageNavigation, sendRefusalPage } from './refusal-page.js';
import { refuseDeepJson, refuseUnsafeStrings, tooDeep } from './hostile-input.js';
import { requestFamily } from './request-family.js';
import { guardRoutesByFamily } from './route-family-guard.js';

export interface HttpAppOptions {
  routers: Router[];
  respondingPsp: string;
  logger: Logger;
  bodyLimit?: string;
  /** Authentication, authorization, rate budgets: run before any route or forwarder. */
  beforeRoutes?: RequestHandler[];
  /** Canonical paths whose JSON bodies may exceed `bodyLimit` (e.g. a directory snapshot), with their limit. */
  largeBodyPaths?: Record<string, string>;
  /** Canonical paths that take a `text/csv` body (an admin-loaded table), read as a string up to their limit. */
  csvBodyPaths?: Record<string, string>;
  /** Families owned by another service, forwarded with the body still unread (see forward.ts). */
  forwarders?: RequestHandler[];
  /**
   * Routes (also mounted in `routers`) served past Express's router at their exact path, through the
   * edge and the body reading but not the forwarders (direct-routes.ts).
   */
  directRoutes?: DirectRoute[];
}

/** Seconds a caller is asked to wait before retrying a request its dependency could not record. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** Families whose success says nothing of the database or broker. */
const DEPENDENCY_FREE_FAMILIES = new Set(['operations', 'metrics', 'api-documents', 'pages']);

/** On every answer, errors included. A JSON API embeds nothing and is framed by no one. */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Strict-Transport-Security', 'max-age=31536000'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Cache-Control', 'no-store'],
];

/** Answers an ApiError in the error format of the request path's family. */
export function sendError(req: Request, res: Response, error: ApiError): void {
  if (res.headersSent) return;
  // originalUrl: inside a mounted router req.path has lost its mount point.
  const format = requestFamily(req, res).errorFormat;
  const { retryAfterSeconds } = error.extra;
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
  if (isPageNavigation(req)) return sendRefusalPage(res, statusIn(format, error), error);
  res.status(statusIn(format, error)).json(
    toErrorBody(error, {
      format,
      respondingPsp: res.locals.respondingPsp as string,
      requestId: req.get('x-request-id'),
    }),
  );
}

/** The X-Request-ID an EPC answer echoes: the caller's, or (when it sent none usable) a fresh UUID. */
function echoedRequestId(sent: string | undefined): string {
  return sent !== undefined && sent.length > 0 && sent.length <= 128 ? sent : randomUUID();
}

/**
 * Scheme paths carry X-Response-Timestamp and X-Processing-Time-Ms on every answer, errors included;
 * the EPC path also echoes X-Request-ID (EPC103-24 response headers).
 */
const schemeTimingHeaders: RequestHandler = (req, res, next) => {
  const format = requestFamily(req, res).errorFormat;
  if (format !== 'scheme' && format !== 'epc') return next();
  if (format === 'epc') res.setHeader('X-Request-ID', echoedRequestId(req.get('x-request-id')));
  const started = performance.now();
  const writeHead = res.writeHead;
  res.writeHead = function patchedWriteHead(
    this: Response,
    ...args: Parameters<Response['writeHead']>
  ) {
    if (!this.headersSent) {
      this.setHeader('X-Response-Timestamp', new Date().toISOString());
      this.setHeader('X-Processing-Time-Ms', String(Math.trunc(performance.now() - started)));
    }
    return writeHead.apply(this, args);
  } as Response['writeHead'];
  next();
};

function requireJsonBody(csvBodyPaths: Record<string, string>): RequestHandler {
  return (req, res, next) => {
    if (requestFamily(req, res).streamedBody === true) return next();
    const hasBody =
      req.headers['transfer-encoding'] !== undefined ||
      Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody || req.is('application/json')) return next();
    if (csvBodyPaths[canonicalPath(req.path)] !== undefined && req.is('text/csv')) return next();
    next(errors.unsupportedMediaType());
  };
}

export function createHttpApp(options: HttpAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // As the route-family table matches (issue 39): routers from createRouter() (router.ts) do the same.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  const outages = new OutageLog(options.logger);
  // The edge before the body, in order: what every request passes, a direct route's too.
  const edge: RequestHandler[] = [httpTracingMiddleware()];
  edge.push((req, res, next) => {
    if (outages.anyDown)
      res.once('finish', () => {
        if (res.statusCode < 300 && !DEPENDENCY_FREE_FAMILIES.has(requestFamily(req, res).name))
          outages.recovered();
      });
    next();
  });
  if (options.logger.isLevelEnabled('debug'))
    edge.push((req, res, next) => {
      // 'finish' runs outside the request's context: its trace ids are written explicitly.
      res.once('finish', () =>
        options.logger.debug(
          {
            ...requestTraceIds(req),
            method: req.method,
            route: matchedRouteLabel(req),
            status: res.statusCode,
          },
          'request answered',
        ),
      );
      next();
    });
  edge.push((req, res, next) => {
    res.locals.respondingPsp = options.respondingPsp;
    const family = requestFamily(req, res);
    const timer = setTimeout(() => {
      const timedOut =
        family.errorFormat === 'scheme' || family.errorFormat === 'epc'
          ? errors.timeout('The request timed out')
          : errors.unavailable('The request timed out', 1);
      sendError(req, res, timedOut);
      // A body still arriving at the deadline is cut off (the server's own timeout is the longest deadline).
      if (!req.complete) res.once('finish', () => req.socket.destroy());
    }, family.deadlineMs);
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => clearTimeout(timer));
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
    next();
  });
  const csvBodyPaths = options.csvBodyPaths ?? {};
  edge.push(
    refuseUncovered,
    schemeTimingHeaders,
    ...(options.beforeRoutes ?? []),
    requireJsonBody(csvBodyPaths),
  );
  for (const handler of edge) app.use(handler);
  for (const forwarder of options.forwarders ?? []) app.use(forwarder);
  for (const [largePath, limit] of Object.entries(options.largeBodyPaths ?? {}))
    for (const base of BASE_PATHS)
      app.use(
        `${base === '/' ? '' : base}${largePath}`,
        express.json({ limit, verify: refuseDeepJson }),
      );
  for (const [csvPath, limit] of Object.entries(csvBodyPaths))
    for (const base of BASE_PATHS)
      app.use(`${base === '/' ? '' : base}${csvPath}`, express.text({ limit, type: 'text/csv' }));
  const parseJson = express.json({
    // 1 MiB: a field over its length (a 100 KB name) is a 400 naming the field, not a 413 (issue 11).
    limit: options.bodyLimit ?? '1mb',
    type: ['application/json', 'application/*+json'],
    verify: refuseDeepJson,
  });
  // Families that stream their body (uploads) read it in their own router.
  const readBody: RequestHandler[] = [
    (req, res, next) =>
      requestFamily(req, res).streamedBody === true ? next() : parseJson(req, res, next),
    refuseUnsafeStrings,
  ];
  for (const handler of readBody) app.use(handler);
  const allowed = allowedMethods(app);
  // OPTIONS names every method the app serves on the path, across routers (Express answers it per router,
  // with the first router's methods only). A path served elsewhere (a forwarder) goes on.
  app.use((req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const methods = allowed(req.path);
    if (methods.length === 0) return next();
    res.setHeader('Allow', methods.join(', '));
    res.status(204).end();
  });
  // One mount per base path: Express 5 does not treat '/' inside a path array as a prefix.
  for (const router of options.routers) for (const base of BASE_PATHS) app.use(base, router);
  guardRoutesByFamily(app, options.logger);

  app.use((req, res, next) => {
    const methods = allowed(req.path);
    if (methods.length === 0) return next(errors.notFound('NOT_FOUND', 'No such endpoint'));
    res.setHeader('Allow', methods.join(', '));
    next(errors.methodNotAllowed(req.method, methods));
  });
  const handleError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    if (error instanceof ApiError) return sendError(req, res, error);
    const bodyParserError = error as { type?: string; status?: number };
    if (bodyParserError.type === 'entity.too.large') return sendError(req, res, errors.tooLarge());
    if (bodyParserError.type === 'entity.too.deep') return sendError(req, res, tooDeep());
    if (bodyParserError.type === 'entity.duplicate.key')
      return sendError(req, res, (error as { refusal: ApiError }).refusal);
    if (bodyParserError.type === 'entity.parse.failed')
      return sendError(req, res, errors.malformedJson());
    if (
      bodyParserError.type === 'encoding.unsupported' ||
      bodyParserError.type === 'charset.unsupported'
    )
      return sendError(req, res, errors.unsupportedMediaType());
    // Anything else body-parser or Express refused as the client's fault (http-errors with a 4xx status).
    const status = bodyParserError.status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return sendError(req, res, errors.unreadable());
    // Nothing was recorded when the database or broker could not be reached: safe to retry.
    const dependency = unreachableDependency(error);
    if (dependency !== undefined) {
      outages.unreachable(dependency, error);
      return sendError(
        req,
        res,
        errors.unavailable(
          `The ${dependency} is unreachable; nothing was recorded, retry later`,
          OUTAGE_RETRY_AFTER_SECONDS,
        ),
      );
    }
    options.logger.error(
      { err: error, family: requestFamily(req, res).name },
      'unhandled request error',
    );
    sendError(req, res, errors.internal());
  };
  app.use(handleError);
  const directRoutes = options.directRoutes ?? [];
  for (const route of directRoutes)
    if (
      options.largeBodyPaths?.[route.path] !== undefined ||
      csvBodyPaths[route.path] !== undefined
    )
      throw new Error(`${route.path} has a body limit of its own: serve it through Express`);
  if (directRoutes.length > 0)
    // Without the forwarders: a direct route is one of this app's own, which no forwarder takes (they
    // take the families other services own, and the gateway's pages, which are GETs).
    serveDirectRoutes(app, { chain: [...edge, ...readBody], handleError, routes: directRoutes });
  return app;
}
