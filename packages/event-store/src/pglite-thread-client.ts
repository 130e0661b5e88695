import { Worker } from 'node:worker_threads';
import { InProcessNotifications } from './in-process-notifications.js';
import {
  deserializeError,
  type PgliteReply,
  type PgliteRequest,
  type PgliteStartup,
  type PgliteThreadData,
} from './pglite-thread-protocol.js';
import type { PgliteClientOptions } from './pglite-client.js';
import type { SqlClient, SqlExecutor } from './types.js';

type QueryResult<R> = { rows: R[]; rowCount: number };
/** A request before the client numbers it (Omit over each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Outgoing = WithoutId<PgliteRequest>;

/**
 * A SqlClient over ONE PGlite instance that runs on a thread of its own (pglite-thread.ts), so its
 * statements do not hold the caller's event loop: embedded, that loop answers the single checks, and
 * PGlite took about half of it (bench/RESULTS.md §1, 2026-11-26). Same contract as pglite-client.ts: one
 * backend, statements in order, a transaction holds every other statement until it ends, and code inside
 * transaction(fn) must use the tx executor it is given. Statements are sent at once, without waiting for
 * the ones before; the thread keeps the order. Listen/notify stay in this process
 * (in-process-notifications.ts).
 */
export async function createPgliteThreadClient(options: PgliteClientOptions): Promise<SqlClient> {
  const worker = new Worker(new URL('./pglite-thread.js', import.meta.url), {
    workerData: (options.dataDir === undefined
      ? {}
      : { dataDir: options.dataDir }) satisfies PgliteThreadData,
  });
  const notifications = new InProcessNotifications();
  const waiting = new Map<
    number,
    { resolve: (reply: PgliteReply) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;
  let nextTransaction = 1;
  let closed = false;
  let failure: Error | undefined;

  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) =>
      reject(new Error(`The PGlite thread ended at start (exit ${code})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (startup: PgliteStartup) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (startup.ready) resolve();
      else reject(deserializeError(startup.error));
    });
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });

  function failAll(error: Error): void {
    failure ??= error;
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  }
  worker.on('message', (reply: PgliteReply) => {
    const pending = waiting.get(reply.id);
    if (pending === undefined) return;
    waiting.delete(reply.id);
    pending.resolve(reply);
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => {
    if (!closed) failAll(new Error(`The PGlite thread ended (exit ${code})`));
  });

  function send(request: Outgoing): Promise<PgliteReply> {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    return new Promise<PgliteReply>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  async function run<R>(request: Outgoing): Promise<QueryResult<R>> {
    const reply = await send(request);
    if (!reply.ok) throw deserializeError(reply.error);
    return { rows: reply.rows as R[], rowCount: reply.rowCount };
  }

  function assertOpen(): void {
    if (closed) throw new Error('The PGlite client is closed');
  }

  return {
    kind: 'pglite',

    async query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]) {
      assertOpen();
      return run<R>({ op: 'query', text, ...(params !== undefined && { params: [...params] }) });
    },

    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      assertOpen();
      const id = nextTransaction++;
      // Not awaited on its own: the thread runs it before the transaction's first statement, which fails
      // with it.
      const begun = run({ op: 'begin', tx: id });
      begun.catch(() => undefined);
      let finished = false;
      const tx: SqlExecutor = {
        query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]) {
          if (finished) return Promise.reject(new Error('This transaction has already finished'));
          return run<R>({
            op: 'query',
            text,
            tx: id,
            ...(params !== undefined && { params: [...params] }),
          });
        },
      };
      notifications.opened(tx);
      let result: T;
      try {
        result = await fn(tx);
        await begun;
      } catch (error) {
        finished = true;
        notifications.ended(tx);
        // Always sent, even when BEGIN failed: until the thread sees the transaction end, every other
        // statement waits. The caller's error is the one worth reporting.
        await run({ op: 'rollback', tx: id }).catch(() => undefined);
        throw error;
      }
      finished = true;
      const notified = notifications.ended(tx);
      await run({ op: 'commit', tx: id });
      notifications.deliver(notified);
      return result;
    },

    ...notifications.clientMethods(assertOpen),

    async close(): Promise<void> {
      if (closed) return;
      // Queued behind whatever was sent before, so in-flight work finishes and the data dir is flushed.
      const done = failure === undefined ? run({ op: 'close' }) : Promise.resolve();
      closed = true;
      notifications.clear();
      try {
        await done;
      } finally {
        await worker.terminate();
      }
    },
  };
}
