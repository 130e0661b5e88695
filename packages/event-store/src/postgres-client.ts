import pg from 'pg';
import { openListenConnection, type ListenConnection } from './listen-connection.js';
import { StatementNames } from './statement-names.js';
import type { SqlClient, SqlExecutor } from './types.js';

export interface PostgresClientOptions {
  connectionString: string;
  /** Pool size; node-postgres defaults to 10. */
  max?: number;
  applicationName?: string;
  /** Connection problems outside any query (idle pool client lost, listener reconnect failed). Default: a process warning. */
  onError?: (error: Error) => void;
}

type QueryResult<R> = { rows: R[]; rowCount: number };

/** A SqlClient over a node-postgres Pool; LISTEN runs on its own connection, opened on first use. */
export function createPostgresClient(options: PostgresClientOptions): SqlClient {
  const onError =
    options.onError ??
    ((error: Error) => process.emitWarning(error.message, 'PostgresClientWarning'));
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    ...(options.max !== undefined ? { max: options.max } : {}),
    ...(options.applicationName !== undefined ? { application_name: options.applicationName } : {}),
    keepAlive: true,
  });
  // Without a listener, an idle client dropped by the server would crash the process.
  pool.on('error', onError);

  const listeners = new Map<string, { callbacks: Set<() => void>; listening: Promise<void> }>();
  let subscriber: Promise<ListenConnection> | undefined;
  let closed = false;

  const statementNames = new StatementNames();

  async function runQuery<R>(
    target: pg.Pool | pg.PoolClient,
    text: string,
    params: readonly unknown[] | undefined,
  ): Promise<QueryResult<R>> {
    const name = statementNames.nameFor(text);
    const values = params === undefined ? undefined : [...params];
    const result = await target.query(
      name === undefined ? { text, values } : { name, text, values },
    );
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  }

  function wake(channel: string): void {
    for (const onNotify of listeners.get(channel)?.callbacks ?? []) onNotify();
  }

  function connectSubscriber(): Promise<ListenConnection> {
    return openListenConnection({
      connectionString: options.connectionString,
      applicationName: `${options.applicationName ?? 'vop'}-listen`,
      onNotify: wake,
      // Notifications sent while the connection was down are lost: wake everybody so they poll once.
      onReconnected: () => {
        for (const channel of listeners.keys()) wake(channel);
      },
      onError,
    });
  }

  const client: SqlClient = {
    kind: 'postgres',

    query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]) {
      return runQuery<R>(pool, text, params);
    },

    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      let broken: Error | undefined;
      // A checked-out client has no pool listener: an unheard 'error' (server gone) would end the process.
      const onConnectionError = (error: Error) => void (broken ??= error);
      connection.on('error', onConnectionError);
      let finished = false;
      const tx: SqlExecutor = {
        query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]) {
          // The connection goes back to the pool afterwards; a leaked tx must not run on someone else's session.
          if (finished) return Promise.reject(new Error('This transaction has already finished'));
          return runQuery<R>(connection, text, params);
        },
      };
      try {
        await connection.query('BEGIN');
        const result = await fn(tx);
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await connection.query('ROLLBACK');
        } catch (rollbackError) {
          broken ??=
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw error;
      } finally {
        finished = true;
        connection.removeListener('error', onConnectionError);
        // Passing an error destroys the connection instead of reusing it in an unknown state.
        connection.release(broken);
      }
    },

    async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
      if (closed) throw new Error('The Postgres client is closed');
      subscriber ??= connectSubscriber();
      let ready: ListenConnection;
      try {
        ready = await subscriber;
      } catch (error) {
        subscriber = undefined;
        throw error;
      }
      let channelListeners = listeners.get(channel);
      if (channelListeners === undefined) {
        const callbacks = new Set<() => void>();
        // A LISTEN on a lost connection is made again on reconnect, and we then wake everybody.
        const listening = ready.listen(channel);
        channelListeners = { callbacks, listening };
        listeners.set(channel, channelListeners);
      }
      // A second caller must not return before LISTEN is in effect either.
      await channelListeners.listening;
      // A distinct wrapper per call, so the same function registered twice is removed once per stop().
      const entry = () => onNotify();
      channelListeners.callbacks.add(entry);
      let stopped = false;
      return async () => {
        if (stopped) return;
        stopped = true;
        const current = listeners.get(channel);
        if (current === undefined) return;
        current.callbacks.delete(entry);
        if (current.callbacks.size === 0 && !closed) {
          listeners.delete(channel);
          await ready.unlisten(channel);
        }
      };
    },

    async notify(channel: string, tx?: SqlExecutor): Promise<void> {
      await (tx ?? client).query('SELECT pg_notify($1, $2)', [channel, '']);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      listeners.clear();
      const pending = subscriber;
      subscriber = undefined;
      if (pending !== undefined) {
        const connected = await pending.catch(() => undefined);
        await connected?.close();
      }
      await pool.end();
    },
  };
  return client;
}
