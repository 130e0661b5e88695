export {
  createBatchService,
  BATCH_SCHEMA,
  type BatchService,
  type BatchServiceOptions,
} from './service.js';
