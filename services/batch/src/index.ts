export {
  createBatchService,
  BATCH_SCHEMA,
  type BatchService,
  type BatchServiceOptions,
} from './service.js';
export { type AccountNumberJudge, unknownAccountJudge } from './batches/account-number-judge.js';
