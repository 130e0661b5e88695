export * from './types.js';
export { ConcurrencyError } from './concurrency-error.js';
export {
  aggregateStream,
  handleCommand,
  type AggregatedStream,
  type AggregateOptions,
  type CommandResult,
  type DecidedEvent,
  type Decider,
  type HandleCommandOptions,
} from './command-handler.js';
export {
  EventStore,
  type AppendOptions,
  type EventStoreOptions,
  type ReadAllOptions,
} from './event-store.js';
export { createPgliteClient, type PgliteClientOptions } from './pglite-client.js';
export { createPostgresClient, type PostgresClientOptions } from './postgres-client.js';
export { migrateSchema, schemaMigration, withMigrationLock } from './migration-lock.js';
export {
  createPgliteThreadClient,
  type PgliteThreadClientOptions,
} from './pglite-thread-client.js';
export { countedWrite, writeTogether, type WriteStatement } from './write-together.js';
export { pipelined } from './pipelined.js';
export { SerialQueue } from './serial-queue.js';
export {
  AUTOVACUUM_DEFAULTS,
  LEAST_PAGES_OWED,
  oldestTransactionIdAge,
  readTableActivity,
  type TableActivity,
  upkeepDue,
  type UpkeepPolicy,
  type UpkeepReason,
  upkeepStatement,
  type UpkeepStep,
} from './pglite-upkeep.js';
export { freezeIdleDatabases, IDLE_DATABASE_FREEZE_AGE } from './pglite-idle-databases.js';
export {
  CHECKPOINT_DEFAULTS,
  checkpointDue,
  type CheckpointPolicy,
  walSinceCheckpoint,
} from './pglite-checkpoints.js';
export { openPglite, PGLITE_START_PARAMS } from './pglite-open.js';
