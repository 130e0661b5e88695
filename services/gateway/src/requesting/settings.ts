import type { ServiceConfig } from '@vop/config';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { createRequester, requesterSettings, requesterTls } from '@vop/requester';
import type { RequestingSettings } from './module.js';

/**
 * The requesting side from the configuration. The development profile asks with the development
 * PKI's participant certificate; elsewhere a requester is made only when VOP_REQUESTER_CERT is set
 * (with its key and anchors, or the start fails naming what is missing), else checks about payees at
 * other banks end RESPONDER_UNAVAILABLE and the start says so once.
 */
export async function requestingSettings(
  config: ServiceConfig,
  deps: { metrics: ServiceMetrics; logger: Logger },
): Promise<RequestingSettings> {
  const configured =
    config.VOP_PROFILE === 'development' || config.VOP_REQUESTER_CERT !== undefined;
  const settings = configured ? requesterSettings(config) : undefined;
  const requester =
    settings &&
    createRequester({
      tls: await requesterTls(settings),
      metrics: deps.metrics,
      logger: deps.logger.child({ component: 'requester' }),
      concurrency: settings.concurrency,
      queue: settings.queue,
      ratePerSecond: settings.ratePerSecond,
      breaker: settings.breaker,
    });
  return {
    ...(requester && { requester }),
    requestingAgentBic: config.VOP_REQUESTING_AGENT_BIC ?? config.VOP_RESPONDING_PSP,
    synchronousDeadlineMs: Math.min(
      config.VOP_PAYEE_BANK_DEADLINE_MS,
      config.VOP_VERIFY_DEADLINE_MS,
    ),
    deferredDeadlineMs: config.VOP_DEFERRED_PAYEE_BANK_DEADLINE_MS,
  };
}
