/** A SQL connection that runs one statement. Both node-postgres and PGlite sit behind it. */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<{ rows: R[]; rowCount: number }>;
}

/** A database handle: statements, transactions and wake-up hints. */
export interface SqlClient extends SqlExecutor {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction (BEGIN/COMMIT, ROLLBACK when fn throws) on one connection. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Wake-up hint (never a delivery guarantee): onNotify runs some time after any transaction that called
   * notify(channel) commits. Postgres: LISTEN/NOTIFY on a reconnecting connection; PGlite: in-process.
   * Returns a function that stops listening.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Sends the hint for channel; inside `tx` it is delivered when that transaction commits. */
  notify(channel: string, tx?: SqlExecutor): Promise<void>;
  close(): Promise<void>;
}

export interface NewEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
  /** Defaults to a random UUID. */
  eventId?: string;
  /** correlationId, traceparent, causationId, ... */
  metadata?: Record<string, string>;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> {
  eventId: string;
  streamId: string;
  /** 1-based position inside the stream. */
  streamPosition: number;
  /** Global position (bigserial); unique, increasing in insert order but NOT in commit order. */
  globalPosition: bigint;
  /** xid8 of the appending transaction, as a decimal string. */
  transactionId: string;
  type: Type;
  data: Data;
  metadata: Record<string, string>;
  occurredAt: Date;
}

/** Where a reader of the whole store stands: everything at or before (transactionId, globalPosition) is read. */
export interface Checkpoint {
  transactionId: string;
  globalPosition: bigint;
}

export const START: Checkpoint = { transactionId: '0', globalPosition: 0n };

/** number = exact current stream version (0 = no event yet). */
export type ExpectedVersion = number | 'no_stream' | 'any';

export interface AppendResult {
  /** Stream version after the append. */
  nextExpectedVersion: number;
  events: RecordedEvent[];
}
