import { topicNames } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus } from '@vop/messaging';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { type AccountProjection, decisionAccountCopy } from '@vop/verifications';
import { GATEWAY_SCHEMA } from '../service.js';

/**
 * The copy of the accounts a gateway decides single checks against: `<gateway schema>_decisions`
 * under the group `<namespace>gateway-decision-accounts`. Made before the gateway where the services
 * beside it in one process decide against the same copy (services/embedded/src/service.ts).
 */
export function gatewayAccountCopy(options: {
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  /** The gateway's schema (default `gateway`). */
  schema?: string;
  namespace?: string;
  metrics?: ServiceMetrics;
}): AccountProjection {
  return decisionAccountCopy({
    store: { sql: options.sql, schema: options.schema ?? GATEWAY_SCHEMA },
    bus: options.bus,
    logger: options.logger,
    group: `${options.namespace ?? ''}gateway-decision-accounts`,
    topic: topicNames(options.namespace ?? '').accountEvents,
    ...(options.metrics && { metrics: options.metrics }),
  });
}
