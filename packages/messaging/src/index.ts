export * from './types.js';
export { createKafkaBus, type KafkaBusOptions } from './kafka/kafka-bus.js';
export { schemaRegistryCodec, type ValueCodec } from './kafka/value-codec.js';
export {
  createInProcessBus,
  type InProcessBus,
  type InProcessBusOptions,
} from './in-process/in-process-bus.js';
export { partitionFor } from './partitioner.js';
export { errorChain } from './kafka/error-chain.js';
export {
  deliverTraced,
  publishTraced,
  spanEachMessage,
  TRACEPARENT_HEADER,
} from './message-tracing.js';
export { PriorityGate, type HighTimes, type PriorityGateOptions } from './priority-gate.js';
export { ContentionPacer, type ContentionPacerOptions } from './contention-pacer.js';
