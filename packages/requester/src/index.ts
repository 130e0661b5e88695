export type {
  AskOptions,
  PayeeCheck,
  Requester,
  RequesterFailureReason,
  Responder,
  RoutedAnswer,
} from './types.js';
export { createRequester, REQUESTER_DEFAULTS, type RequesterOptions } from './requester.js';
export { DEFAULT_BREAKER_SETTINGS, type BreakerSettings } from './circuit-breaker.js';
export { REQUESTER_DURATION_BUCKETS_SECONDS } from './requester-metrics.js';
export { requesterSettings, requesterTls, type RequesterSettings } from './requester-settings.js';
