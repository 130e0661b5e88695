import type { PGlite, Transaction } from '@electric-sql/pglite';
import { InProcessNotifications } from './in-process-notifications.js';
import { openPglite } from './pglite-open.js';
import { SerialQueue } from './serial-queue.js';
import type { SqlClient, SqlExecutor } from './types.js';

export interface PgliteClientOptions {
  /** A directory on disk; undefined keeps the database in memory. */
  dataDir?: string;
}

type QueryResult<R> = { rows: R[]; rowCount: number };

/**
 * A SqlClient over ONE PGlite instance. PGlite has a single backend, so an open transaction blocks every
 * other statement: everything goes through one queue and transaction() holds it until COMMIT/ROLLBACK.
 * Consequently, code running inside transaction(fn) must use the tx executor it is given; awaiting a call on
 * the client itself from there would wait for the transaction forever.
 * Listen/notify are in-process (in-process-notifications.ts). PGlite runs on the calling thread: the
 * embedded service uses pglite-thread-client.ts, which runs it on a thread of its own.
 */
export async function createPgliteClient(options: PgliteClientOptions): Promise<SqlClient> {
  const db = await openPglite(options.dataDir === undefined ? {} : { dataDir: options.dataDir });
  const queue = new SerialQueue();
  const notifications = new InProcessNotifications();
  let closed = false;

  async function runQuery<R>(
    target: PGlite | Transaction,
    text: string,
    params: readonly unknown[] | undefined,
  ): Promise<QueryResult<R>> {
    const result = await target.query<R>(text, params === undefined ? undefined : [...params]);
    // PGlite reports affectedRows for writes and 0 for SELECT; node-postgres counts returned rows for SELECT.
    return { rows: result.rows, rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
  }

  function assertOpen(): void {
    if (closed) throw new Error('The PGlite client is closed');
  }

  const client: SqlClient = {
    kind: 'pglite',

    query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]) {
      return queue.run(async () => {
        assertOpen();
        return runQuery<R>(db, text, params);
      });
    },

    transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return queue.run(async () => {
        assertOpen();
        let notified = new Set<string>();
        const result = await db.transaction(async (pgliteTx) => {
          let finished = false;
          const tx: SqlExecutor = {
            query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]) {
              if (finished)
                return Promise.reject(new Error('This transaction has already finished'));
              return runQuery<R>(pgliteTx, text, params);
            },
          };
          notifications.opened(tx);
          try {
            return await fn(tx);
          } finally {
            finished = true;
            notified = notifications.ended(tx);
          }
        });
        // Reached only after COMMIT succeeded.
        notifications.deliver(notified);
        return result;
      });
    },

    ...notifications.clientMethods(assertOpen),

    close(): Promise<void> {
      // Queued behind whatever is running, so in-flight work finishes and the data dir is flushed.
      return queue.run(async () => {
        if (closed) return;
        closed = true;
        notifications.clear();
        await db.close();
      });
    },
  };
  return client;
}
