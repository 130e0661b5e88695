import type { Express, RequestHandler, Router } from 'express';
import type { Logger } from '@vop/observability';
import { authorizeInternallyByFamily } from './access.js';
import { createHttpApp } from './app.js';
import { trustedPrincipal } from './internal-principal.js';
import { opsRoutes, type ReadinessCheck } from './ops-routes.js';

export interface InternalAppOptions {
  logger: Logger;
  respondingPsp: string;
  version: string;
  startedAt: number;
  checks: ReadinessCheck[];
  isShuttingDown: () => boolean;
  metrics?: RequestHandler;
  /** The service's own families, served only with a principal the edge signed. */
  routers: Router[];
  /** VOP_INTERNAL_SECRET; without it the service serves its probes only. */
  internalSecret: string | undefined;
  /** GET /health/detailed for the gateway's aggregate (served only with a signed admin principal). */
  detailed?: { report: () => Promise<object> };
  now?: () => Date;
}

/**
 * The internal listener of a service behind the gateway: its operations probes, and its own route
 * families for requests the edge forwarded (packages/http/src/forward.ts), authorized again from
 * the route-family table with the principal the edge signed.
 */
export function createInternalApp(options: InternalAppOptions): Express {
  const { internalSecret } = options;
  const ops = opsRoutes({
    version: options.version,
    startedAt: options.startedAt,
    checks: options.checks,
    isShuttingDown: options.isShuttingDown,
    ...(options.metrics && { metrics: options.metrics }),
    ...(internalSecret !== undefined && options.detailed && { detailed: options.detailed }),
  });
  return createHttpApp({
    logger: options.logger,
    respondingPsp: options.respondingPsp,
    beforeRoutes:
      internalSecret === undefined
        ? []
        : [
            trustedPrincipal({
              secret: internalSecret,
              ...(options.now && { now: options.now }),
            }),
            authorizeInternallyByFamily,
          ],
    routers: internalSecret === undefined ? [ops] : [ops, ...options.routers],
  });
}
