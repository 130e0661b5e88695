export * from './types.js';
export { createKafkaBus, type KafkaBusOptions } from './kafka/kafka-bus.js';
export {
  createInProcessBus,
  type InProcessBus,
  type InProcessBusOptions,
} from './in-process/in-process-bus.js';
export { partitionFor } from './partitioner.js';
export { PriorityGate } from './priority-gate.js';
