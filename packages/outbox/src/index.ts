export * from './envelope.js';
export * from './inbox.js';
export * from './relay.js';
export {
  OutboxRelayThread,
  serveRelayThread,
  type OutboxRelayThreadOptions,
  type RelayControl,
} from './relay-thread.js';
export { registerLagMetrics, type LagSources } from './lag-metrics.js';
export { IdlePoll } from './idle-poll.js';
export { Lease } from './lease.js';
export { logHandlerError } from './handler-errors.js';
export {
  outboxLag,
  serviceHealth,
  type ServiceHealth,
  type ServiceHealthSources,
} from './service-health.js';
