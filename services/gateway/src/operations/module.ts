import { RELEASE_VERSION } from '@vop/config';
import { TOPIC_PARTITIONS } from '@vop/contracts';
import { opsRoutes, type ReadinessCheck } from '@vop/http';
import { metricsEndpoint } from '@vop/observability';
import {
  registerLagMetrics,
  relayReadiness,
  serviceHealth,
  type RelayControl,
  type ServiceHealth,
} from '@vop/outbox';
import { detailedHealth } from '../admin/detailed-health.js';
import { apiDocumentRoutes } from '../api-documents/routes.js';
import type { GatewayEdgeOptions } from '../edge.js';
import type { GatewayContext, GatewayModule } from '../module.js';
import { GATEWAY_OUTBOX_RELAY_NAME } from '../outbox/gateway-relay.js';

/** Liveness, readiness, health, metrics and the API documents. */
export function operationsModule(
  context: GatewayContext,
  options: {
    relay: RelayControl;
    isShuttingDown: () => boolean;
    consumers: () => Array<{ groupId: string; topics: string[] }>;
    readiness: ReadinessCheck[];
    /** Embedded run: the health reports of the services composed in this process. */
    serviceHealth?: Array<() => Promise<ServiceHealth>>;
    /** Distributed run: where the other services answer their own health. */
    forwarding?: GatewayEdgeOptions['forwarding'];
  },
): GatewayModule {
  const { sql, bus, store, metrics, environment } = context;
  const startedAt = Date.now();
  const healthSources = {
    service: 'gateway',
    sql,
    bus,
    topics: Object.values(context.topics).map((name) => ({ name, partitions: TOPIC_PARTITIONS })),
    consumers: options.consumers,
    outboxes: [{ store, relayName: GATEWAY_OUTBOX_RELAY_NAME }],
  };
  if (metrics) {
    registerLagMetrics(metrics, healthSources);
    // Every group subscribed through the bus, named in the health report or not (the core-banking feed;
    // embedded, the one bus of every service).
    registerLagMetrics(metrics, {
      bus,
      consumers: () => bus.subscribedGroups?.() ?? [],
      outboxes: [],
    });
  }
  const ops = opsRoutes({
    version: RELEASE_VERSION,
    startedAt,
    isShuttingDown: options.isShuttingDown,
    ...(metrics && { metrics: metricsEndpoint(metrics) }),
    detailed: {
      report: (principal) =>
        detailedHealth({
          version: RELEASE_VERSION,
          startedAt,
          principal,
          gateway: () => serviceHealth(healthSources),
          local: options.serviceHealth ?? [],
          ...(options.forwarding && { remote: options.forwarding }),
        }),
    },
    checks: [
      { name: 'database', check: async () => void (await sql.query('SELECT 1')) },
      { name: 'outbox-relay', check: async () => relayReadiness(options.relay) },
      ...options.readiness,
    ],
  });
  return { routers: [ops, apiDocumentRoutes(RELEASE_VERSION, environment)] };
}
