export { isTransientError } from './transient-errors.js';
export { startWithRetry, type StartWithRetryOptions } from './start-with-retry.js';
