import type { ServiceConfig } from '@vop/config';

/** The dispatcher's settings (packages/config: VOP_WEBHOOK_*), in the service's own words. */
export interface WebhookSettings {
  /** Live deployments deliver to https:// receivers only. */
  httpsOnly: boolean;
  allowedNetworks: string[];
  attemptTimeoutMs: number;
  retryDelaysMs: number[];
  endpointConcurrency: number;
  maxInFlight: number;
  pollIntervalMs: number;
}

export function webhookSettings(config: ServiceConfig): WebhookSettings {
  return {
    httpsOnly: config.VOP_ENVIRONMENT === 'live',
    allowedNetworks: config.VOP_WEBHOOK_ALLOWED_NETWORKS,
    attemptTimeoutMs: config.VOP_WEBHOOK_ATTEMPT_TIMEOUT_MS,
    retryDelaysMs: config.VOP_WEBHOOK_RETRY_SCHEDULE_MS,
    endpointConcurrency: config.VOP_WEBHOOK_ENDPOINT_CONCURRENCY,
    maxInFlight: config.VOP_WEBHOOK_MAX_IN_FLIGHT,
    pollIntervalMs: config.VOP_WEBHOOK_POLL_INTERVAL_MS,
  };
}
