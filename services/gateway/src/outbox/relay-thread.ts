import { workerData } from 'node:worker_threads';
import { loadConfig } from '@vop/config';
import { EventStore } from '@vop/event-store';
import { startServiceTracing } from '@vop/lifecycle';
import { createLogger } from '@vop/observability';
import { serveRelayThread } from '@vop/outbox';
import { gatewayConnections } from '../connections.js';
import { gatewayRelay } from './gateway-relay.js';
import { RelayThreadData } from './relay-thread-data.js';

/**
 * The distributed gateway's outbox relay on a thread of its own (OutboxRelayThread, packages/outbox):
 * the same relay as on the main thread, with its own connections from the same configuration.
 */
// Two connections: the relay's read and its lease or checkpoint; LISTEN has one of its own.
const RELAY_POOL_MAX = 2;

const data = RelayThreadData.parse(workerData);
const config = loadConfig();
const tracing = startServiceTracing('gateway');
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL }).child({
  component: 'outbox-relay-thread',
});
await serveRelayThread(async () => {
  const { sql, bus } = gatewayConnections(config, 'relay', RELAY_POOL_MAX);
  const store = new EventStore(sql, { schema: data.schema });
  return {
    relay: gatewayRelay({ ...data, store, bus, logger }),
    close: async () => {
      await bus.close();
      await sql.close();
      await tracing.shutdown();
    },
  };
});
