export * from './envelope.js';
export * from './inbox.js';
export * from './relay.js';
export { Lease } from './lease.js';
export { logHandlerError } from './handler-errors.js';
