export { isTransientError } from './transient-errors.js';
export { startWithRetry, type StartWithRetryOptions } from './start-with-retry.js';
export {
  runInternalService,
  type RunnableService,
  type ServiceParts,
} from './run-internal-service.js';
export { kafkaValueCodec } from './kafka-value-codec.js';
export { lowerProcessPriority } from './background-priority.js';
export { brokerReadiness } from './broker-readiness.js';
export { closeQuietly, startInOrder, type StartPart } from './start-in-order.js';
export { startServiceTracing } from './service-tracing.js';
export { periodicJob, type PeriodicJob } from './periodic-job.js';
