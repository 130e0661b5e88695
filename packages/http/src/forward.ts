import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Logger } from '@vop/observability';
import { sendError } from './app.js';
import { errors } from './errors.js';
import { principalHeaders } from './internal-principal.js';
import { principalOf } from './principal.js';
import { requestFamily } from './request-family.js';
import { ownedBy, ROUTE_FAMILIES, type ServiceName } from './route-families.js';

export interface ForwardOptions {
  owner: ServiceName;
  /** The owner's internal listener, e.g. http://127.0.0.1:8601. */
  target: string;
  /** Signs the forwarded principal (VOP_INTERNAL_SECRET, shared by the edge and the owners). */
  secret: string;
  logger: Logger;
  now?: () => Date;
}

/** The upstream gives up a little before the edge's own deadline, so only one of them ever answers. */
const UPSTREAM_MARGIN_MS = 250;

/**
 * The edge's forwarder for the families another service owns: after the edge authenticated,
 * authorized and rate-limited the request, it goes with its body unread to the owner's internal
 * listener, carrying the signed principal (internal-principal.ts). An unreachable owner is 503.
 */
export function forwardToOwner(options: ForwardOptions): RequestHandler {
  const now = options.now ?? (() => new Date());
  const owns = ownedBy(options.owner);
  const deadlines = ROUTE_FAMILIES.filter((family) => family.owner === options.owner).map(
    (family) => family.deadlineMs,
  );
  return createProxyMiddleware<Request, Response>({
    target: options.target,
    pathFilter: (path, req) => owns(path, req.method),
    proxyTimeout: Math.max(UPSTREAM_MARGIN_MS, Math.min(...deadlines) - UPSTREAM_MARGIN_MS),
    on: {
      proxyReq: (proxyReq, _req, res) => {
        // setHeader replaces whatever the outside caller sent under these names.
        for (const [name, value] of Object.entries(
          principalHeaders(principalOf(res), options.secret, now()),
        )) {
          proxyReq.setHeader(name, value);
        }
      },
      error: (error, req, res) => {
        if (!('setHeader' in res)) return; // an upgraded socket: nothing to answer on
        const family = requestFamily(req, res).name;
        options.logger.warn({ err: error, owner: options.owner, family }, 'owner unreachable');
        sendError(req, res, errors.unavailable(`The ${options.owner} service is unavailable`, 1));
      },
    },
  });
}
