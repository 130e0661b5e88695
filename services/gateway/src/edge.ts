import { authorizeByFamily, familyFor, forwardToOwner, type ServiceName } from '@vop/http';
import { httpMetricsMiddleware, type Logger, type ServiceMetrics } from '@vop/observability';
import type { RequestHandler } from 'express';
import type { AuditLog } from './audit/audit-log.js';
import { auditWrites } from './audit/audit-writes.js';
import type { KeyEnvironment } from './security/api-keys/api-key-secret.js';
import type { ApiKeyStore } from './security/api-keys/api-key-store.js';
import { bearerAuthentication } from './security/api-keys/bearer-authentication.js';
import {
  clientCertificateAuth,
  requireCertificateByFamily,
  type ClientCertificateAuthOptions,
} from './security/client-certificate.js';
import type { RateLimits } from './security/rate-limit.js';

export interface GatewayEdgeOptions {
  metrics?: ServiceMetrics;
  clientCertificates?: Omit<ClientCertificateAuthOptions, 'logger' | 'required'>;
  forwarding?: { serviceUrls: Partial<Record<ServiceName, string>>; internalSecret: string };
  apiKeys: ApiKeyStore;
  environment: KeyEnvironment;
  audit: AuditLog;
  rateLimits: RateLimits;
  logger: Logger;
  clock: () => Date;
}

/**
 * The public edge, in order: metrics, the client certificate, API keys, audit (before authorization,
 * so refused management attempts are audited too), authorization and rate budgets, every step
 * reading the route-family table (packages/http/src/route-families.ts); then the forwarders of the
 * families other services own.
 */
export function gatewayEdge(options: GatewayEdgeOptions): {
  beforeRoutes: RequestHandler[];
  forwarders: RequestHandler[];
} {
  const { logger, clock, forwarding } = options;
  const forwardedOwners = new Set(Object.keys(forwarding?.serviceUrls ?? {}));
  // Requests the edge forwarded have no local route: they are counted by family.
  const forwardedFamilyLabel = (req: { originalUrl?: string; method?: string }) => {
    const family = familyFor((req.originalUrl ?? '/').split('?')[0] ?? '/', req.method);
    return forwardedOwners.has(family.owner) ? `forwarded:${family.name}` : undefined;
  };
  const certificates = options.clientCertificates;
  return {
    beforeRoutes: [
      ...(options.metrics
        ? [httpMetricsMiddleware(options.metrics, { labelUnmatched: forwardedFamilyLabel })]
        : []),
      ...(certificates
        ? [
            clientCertificateAuth({
              now: clock,
              ...certificates,
              required: false,
              logger: logger.child({ component: 'mtls' }),
            }),
            requireCertificateByFamily,
          ]
        : []),
      bearerAuthentication({ keys: options.apiKeys, environment: options.environment }),
      auditWrites({ audit: options.audit, logger }),
      authorizeByFamily,
      options.rateLimits.middleware,
    ],
    forwarders: forwarding
      ? Object.entries(forwarding.serviceUrls).map(([owner, target]) =>
          forwardToOwner({
            owner: owner as ServiceName,
            target,
            secret: forwarding.internalSecret,
            logger,
            now: clock,
          }),
        )
      : [],
  };
}
