import { routeIntegrationEvent } from '@vop/contracts';
import { EventStore } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import { logHandlerError, OutboxRelay, relayReadiness } from '@vop/outbox';
import type { Requester } from '@vop/requester';
import type { DecideRound, PayeeBankAnswer } from '@vop/verifications';
import type { GatewayContext, GatewayModule } from '../module.js';
import type { PayeeBankFinder } from '../scheme-directory/payee-bank.js';
import type { RoutedChecks } from '../verifications/synchronous.js';
import { payeeBanks } from './ask-payee-bank.js';
import { routedRequests } from './routing-consumer.js';

/** The requesting side's settings (GatewayOptions.requesting). */
export interface RequestingSettings {
  /** Undefined: no requester certificate configured; a check about another bank ends RESPONDER_UNAVAILABLE. */
  requester?: Requester;
  /** Our BIC as requestingAgent. */
  requestingAgentBic: string;
  /** A synchronous family's payee bank (immediate, simple): the 2 s deadline less our own work. */
  synchronousDeadlineMs: number;
  /** Request/result and batch entries: the scheme's 5 s. */
  deferredDeadlineMs: number;
}

/** Of every delivery this many requests; each partition's asks run together, eight partitions at once. */
const DELIVERY_SIZE = 100;

/**
 * The requesting side (design §9; docs/architecture.md, "The requesting side"): the checks of our own
 * customers about payees at other banks. A synchronous family asks in its request (`routed`, given to
 * the verifications module); request/result checks and batch entries are asked by the consumer of the
 * routing topic, whose ends go to a store and outbox of their own.
 */
export function requestingModule(
  context: GatewayContext,
  options: {
    settings: RequestingSettings;
    payeeBanks: PayeeBankFinder;
    /** Our own decisions for a routed request that turns out to be ours (the verifications module's). */
    localDecisions: () => DecideRound | undefined;
  },
): GatewayModule & { routed: RoutedChecks; readiness: () => Promise<void> } {
  const { sql, schema, bus, topics, namespace, logger } = context;
  const { settings } = options;
  const banks = payeeBanks({
    finder: options.payeeBanks,
    requester: settings.requester,
    requestingAgentBic: settings.requestingAgentBic,
  });
  const store = new EventStore(sql, { schema: `${schema}_routing` });
  const relay = new OutboxRelay({
    store,
    bus,
    name: 'gateway-routing-outbox',
    instanceId: `gateway-routing-${context.instanceId}`,
    route: (event) => routeIntegrationEvent(topics, event),
    onError: loopFailureLog(logger, 'routing outbox relay failed; retrying'),
  });
  const answers = new Map<string, PayeeBankAnswer>();
  const group = {
    groupId: `${namespace}gateway-payee-bank-requests`,
    topics: [topics.verificationRequestedRouting],
  };
  if (settings.requester === undefined)
    logger.warn(
      'no requester certificate configured (VOP_REQUESTER_CERT): checks about payees at other banks end RESPONDER_UNAVAILABLE',
    );
  return {
    routed: { banks, answers, deadlineMs: settings.synchronousDeadlineMs },
    readiness: () => relayReadiness(relay),
    migrate: () => store.migrate(),
    async subscribe(opened) {
      const consumer = routedRequests({
        store,
        banks,
        local: options.localDecisions(),
        cipher: context.personalData.cipher,
        clock: context.clock,
        deadlineMs: settings.deferredDeadlineMs,
      });
      opened.push(
        await bus.subscribe({
          ...group,
          onHandlerError: logHandlerError(logger, 'payee-bank-requests'),
          partitionsConsumedConcurrently: 8,
          maxBatchSize: DELIVERY_SIZE,
          batchHandler: consumer.handle,
        }),
      );
    },
    run: () => relay.start(),
    async stop() {
      await relay.stop();
      await settings.requester?.close();
    },
  };
}
