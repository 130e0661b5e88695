import { ACCOUNT_STREAM_PREFIX, routeIntegrationEvent, topicNames } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Bus } from '@vop/messaging';
import type { Logger } from '@vop/observability';
import { OutboxRelay } from '@vop/outbox';

export const GATEWAY_OUTBOX_RELAY_NAME = 'gateway-outbox';

/**
 * How long the distributed relay gathers appends into one publication when no caller waits for them
 * (single checks decided at recording: their events feed analytics and webhooks only). Each publication
 * costs a read of the outbox, a produce request per topic and a fetch per consumer; at 1,000 checks/s a
 * relay that published at every append took more CPU than the box had to spare. Embedded it bought
 * nothing measurable and a burst's webhooks arrived later, so the embedded relay does not linger
 * (both measured in bench/RESULTS.md §1).
 */
export const DECIDED_AT_RECORDING_LINGER_MS = 50;

/** The gateway's outbox relay, the same on the main thread (embedded, tests) and on its own (relay-thread.ts). */
export function gatewayRelay(options: {
  store: EventStore;
  bus: Bus;
  namespace: string;
  instanceId: string;
  logger: Logger;
  lingerMs: number;
  /** Every reader of the account events is written with them at commit (`GatewayOptions`). */
  accountEventsReadAtCommit?: boolean;
}): OutboxRelay {
  const topics = topicNames(options.namespace);
  return new OutboxRelay({
    store: options.store,
    bus: options.bus,
    name: GATEWAY_OUTBOX_RELAY_NAME,
    instanceId: `gateway-${options.instanceId}`,
    route: (event) => routeIntegrationEvent(topics, event),
    lingerMs: options.lingerMs,
    ...(options.accountEventsReadAtCommit === true && {
      readAtCommit: { streamPrefix: ACCOUNT_STREAM_PREFIX },
    }),
    onError: loopFailureLog(options.logger, 'gateway outbox relay failed; retrying'),
  });
}
