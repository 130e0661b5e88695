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
  /** Ends of verifications older than this are forgotten by the first-end rule. */
  endedRetentionMs: number;
  pruneIntervalMs: number;
}

/** This machine: where a developer's receiver listens. */
const LOOPBACK = ['127.0.0.0/8', '::1'];

export function webhookSettings(config: ServiceConfig): WebhookSettings {
  if (config.VOP_WEBHOOK_ENDED_RETENTION_MS <= config.VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS)
    throw new Error(
      'VOP_WEBHOOK_ENDED_RETENTION_MS must exceed VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS: ' +
        'a verification’s second end could otherwise be sent after its first was forgotten',
    );
  return {
    httpsOnly: config.VOP_ENVIRONMENT === 'live',
    // The development profile of a test deployment runs on a developer's machine: a receiver there
    // is allowed without a setting. Production and live keep the guard as configured.
    allowedNetworks: [
      ...config.VOP_WEBHOOK_ALLOWED_NETWORKS,
      ...(config.VOP_PROFILE === 'development' && config.VOP_ENVIRONMENT === 'test'
        ? LOOPBACK
        : []),
    ],
    attemptTimeoutMs: config.VOP_WEBHOOK_ATTEMPT_TIMEOUT_MS,
    retryDelaysMs: config.VOP_WEBHOOK_RETRY_SCHEDULE_MS,
    endpointConcurrency: config.VOP_WEBHOOK_ENDPOINT_CONCURRENCY,
    maxInFlight: config.VOP_WEBHOOK_MAX_IN_FLIGHT,
    pollIntervalMs: config.VOP_WEBHOOK_POLL_INTERVAL_MS,
    endedRetentionMs: config.VOP_WEBHOOK_ENDED_RETENTION_MS,
    pruneIntervalMs: config.VOP_WEBHOOK_PRUNE_INTERVAL_MS,
  };
}
