import { OutboxRelayThread, migrateInbox, type RelayControl } from '@vop/outbox';
import type { GatewayContext, GatewayModule } from '../module.js';
import { DECIDED_AT_RECORDING_LINGER_MS, gatewayRelay } from './gateway-relay.js';
import type { RelayThreadData } from './relay-thread-data.js';

/** The gateway's store and the relay that publishes what it appends. */
export function outboxModule(
  context: GatewayContext,
  options: {
    relayOnThread?: boolean;
    decidedAtRecording: boolean;
    accountEventsReadAtCommit: boolean;
  },
): GatewayModule & { relay: RelayControl } {
  const { sql, schema, store, bus, logger } = context;
  const relaySettings = {
    namespace: context.namespace,
    instanceId: context.instanceId,
    // Distributed only: embedded, a burst's webhooks arrived later with it (gateway-relay.ts says why).
    lingerMs:
      options.relayOnThread === true && options.decidedAtRecording
        ? DECIDED_AT_RECORDING_LINGER_MS
        : 0,
  };
  if (options.relayOnThread === true && options.accountEventsReadAtCommit)
    throw new Error(
      'account events are read at commit only where the relay runs on the main thread',
    );
  const relay: RelayControl = options.relayOnThread
    ? new OutboxRelayThread({
        entry: new URL('./relay-thread.js', import.meta.url),
        workerData: { ...relaySettings, schema } satisfies RelayThreadData,
        logger,
      })
    : gatewayRelay({
        ...relaySettings,
        store,
        bus,
        logger,
        accountEventsReadAtCommit: options.accountEventsReadAtCommit,
      });
  return {
    relay,
    async migrate() {
      await store.migrate();
      await migrateInbox(sql, schema);
    },
    run: () => relay.start(),
    stop: () => relay.stop(),
  };
}
