export {
  acceptFor,
  batchClient,
  BatchRequestError,
  contentTypeOf,
  type BatchClient,
  type BatchClientOptions,
  type BatchStatus,
} from './client.js';
export { runBatch, type RunBatchOptions } from './run.js';
