import { topicNames } from '@vop/contracts';
import { type AccountProjection, decisionAccountCopy } from '@vop/verifications';
import type { GatewayOptions } from '../options.js';
import { GATEWAY_SCHEMA } from '../service.js';

/**
 * The copy of the accounts a gateway decides single checks against: `<gateway schema>_decisions`
 * under the group `<namespace>gateway-decision-accounts`. Made before the gateway, from the options it
 * will be given, where the services beside it in one process decide against the same copy
 * (services/embedded/src/service.ts).
 */
export function gatewayAccountCopy(
  options: Pick<GatewayOptions, 'sql' | 'bus' | 'logger' | 'schema' | 'namespace' | 'metrics'>,
): AccountProjection {
  const namespace = options.namespace ?? '';
  return decisionAccountCopy({
    store: { sql: options.sql, schema: options.schema ?? GATEWAY_SCHEMA },
    bus: options.bus,
    logger: options.logger,
    group: `${namespace}gateway-decision-accounts`,
    topic: topicNames(namespace).accountEvents,
    ...(options.metrics && { metrics: options.metrics }),
  });
}
