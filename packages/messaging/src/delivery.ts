import type { BatchHandler, IncomingMessage, SubscribeOptions } from './types.js';

export const DEFAULT_MAX_BATCH_SIZE = 500;

/**
 * How a subscription hands messages over, the same for both adapters: always as a batch, so one
 * delivery loop serves both kinds of subscriber. A per-message handler is a batch handler that only
 * ever gets batches of 1.
 */
export interface Delivery {
  readonly deliver: BatchHandler;
  readonly maxBatchSize: number;
  /** `lingerMs` of a batch subscription (0: deliver at once). */
  readonly lingerMs: number;
}

/** Checks that exactly one handler is given (callers may bypass the types) and builds the delivery. */
export function deliveryFor(options: SubscribeOptions): Delivery {
  const hasHandler = options.handler !== undefined;
  const hasBatchHandler = options.batchHandler !== undefined;
  if (hasHandler === hasBatchHandler) {
    throw new TypeError('subscribe needs exactly one of handler and batchHandler');
  }
  if (options.handler !== undefined) {
    if (typeof options.handler !== 'function') throw new TypeError('handler must be a function');
    if (options.maxBatchSize !== undefined)
      throw new TypeError('maxBatchSize applies only with batchHandler');
    if (options.lingerMs !== undefined)
      throw new TypeError('lingerMs applies only with batchHandler');
    const handler = options.handler;
    return { deliver: (messages) => handler(messages[0]!), maxBatchSize: 1, lingerMs: 0 };
  }
  if (typeof options.batchHandler !== 'function')
    throw new TypeError('batchHandler must be a function');
  const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw new RangeError(`maxBatchSize must be a positive integer, got ${maxBatchSize}`);
  }
  const lingerMs = options.lingerMs ?? 0;
  if (!Number.isFinite(lingerMs) || lingerMs < 0)
    throw new RangeError(`lingerMs must be a number of milliseconds >= 0, got ${lingerMs}`);
  return { deliver: options.batchHandler, maxBatchSize, lingerMs };
}

/** Tells `onHandlerError` about a failed delivery, naming the batch's first message. */
export function reportHandlerError(
  onHandlerError: SubscribeOptions['onHandlerError'],
  error: unknown,
  batch: readonly IncomingMessage[],
  attempt: number,
): void {
  try {
    onHandlerError?.(error, batch[0]!, attempt);
  } catch {
    // A failing error reporter must not stop redelivery.
  }
}
