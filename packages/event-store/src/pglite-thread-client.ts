import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { InProcessNotifications } from './in-process-notifications.js';
import { encodeLongStrings } from './pglite-encoded-params.js';
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

export interface PgliteThreadClientOptions extends PgliteClientOptions {
  /** First wait before a thread that ended is started again; doubles per failed start, up to 5 s. */
  restartDelayMs?: number;
  /** A thread ended while the client was open (its statements failed with `error`). */
  onThreadEnded?: (error: Error) => void;
  /** A thread is open and serving: the first one, and each one started after another ended. */
  onThreadStarted?: (thread: Worker) => void;
  /** Default IDLE_DATABASE_FREEZE_AGE (pglite-idle-databases.ts). */
  freezeIdleDatabasesOlderThan?: number;
  /** Other databases of the folder (template0, template1) were frozen as it was opened. */
  onIdleDatabasesFrozen?: (databases: string[]) => void;
  /** Freezing them failed; the folder was opened all the same. */
  onIdleDatabasesFreezeFailed?: (error: Error) => void;
}

const MAX_RESTART_DELAY_MS = 5000;

/**
 * A SqlClient over ONE PGlite instance that runs on a thread of its own (pglite-thread.ts), so its
 * statements do not hold the caller's event loop: embedded, that loop answers the single checks, and
 * PGlite took a large share of it (bench/RESULTS.md §1). Same contract as pglite-client.ts: one
 * backend, statements in order, a transaction holds every other statement until it ends, and code inside
 * transaction(fn) must use the tx executor it is given. Statements are sent at once, without waiting for
 * the ones before; the thread keeps the order. Listen/notify stay in this process
 * (in-process-notifications.ts).
 *
 * A thread that ends while the client is open (PGlite aborted, the thread ran out of memory) fails what
 * it was running, and every statement fails at once until a new thread has opened the same data folder
 * (PGlite recovers it as after a crash), tried again with backoff: the process stays up and says not
 * ready meanwhile, as after a lost database connection. In memory there is nothing to reopen: the
 * client stays failed.
 */
export async function createPgliteThreadClient(
  options: PgliteThreadClientOptions,
): Promise<SqlClient> {
  const notifications = new InProcessNotifications();
  const waiting = new Map<
    number,
    { resolve: (reply: PgliteReply) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;
  let nextTransaction = 1;
  let closed = false;
  /** Why statements fail at once: the thread ended and no new one is open yet. */
  let failure: Error | undefined;
  const stopRestarting = new AbortController();

  async function startThread(): Promise<Worker> {
    const thread = new Worker(new URL('./pglite-thread.js', import.meta.url), {
      workerData: (options.dataDir === undefined
        ? {}
        : {
            dataDir: options.dataDir,
            ...(options.freezeIdleDatabasesOlderThan !== undefined && {
              freezeIdleDatabasesOlderThan: options.freezeIdleDatabasesOlderThan,
            }),
          }) satisfies PgliteThreadData,
    });
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number) =>
        reject(new Error(`The PGlite thread ended at start (exit ${code})`));
      thread.once('error', reject);
      thread.once('exit', onExit);
      thread.once('message', (startup: PgliteStartup) => {
        thread.off('error', reject);
        thread.off('exit', onExit);
        if (!startup.ready) return reject(deserializeError(startup.error));
        if (startup.frozen.length > 0) options.onIdleDatabasesFrozen?.(startup.frozen);
        if (startup.freezeFailed)
          options.onIdleDatabasesFreezeFailed?.(deserializeError(startup.freezeFailed));
        resolve();
      });
    }).catch(async (error: unknown) => {
      await thread.terminate();
      throw error;
    });
    thread.on('message', (reply: PgliteReply) => {
      const pending = waiting.get(reply.id);
      if (pending === undefined) return;
      waiting.delete(reply.id);
      pending.resolve(reply);
    });
    // 'error' is followed by 'exit'; the error says more than the exit code.
    let ended: Error | undefined;
    thread.on('error', (error) => (ended ??= error));
    thread.on('exit', (code) => {
      if (closed || worker !== thread) return;
      threadEnded(ended ?? new Error(`The PGlite thread ended (exit ${code})`));
    });
    options.onThreadStarted?.(thread);
    return thread;
  }

  function threadEnded(error: Error): void {
    failure = error;
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
    options.onThreadEnded?.(error);
    if (options.dataDir !== undefined) void restart();
  }

  async function restart(): Promise<void> {
    let delayMs = options.restartDelayMs ?? 100;
    while (!closed) {
      // Aborted by close(): the loop ends below.
      await delay(delayMs, undefined, { signal: stopRestarting.signal }).catch(() => undefined);
      if (closed) return;
      try {
        const thread = await startThread();
        if (closed) {
          await thread.terminate();
          return;
        }
        worker = thread;
        failure = undefined;
        return;
      } catch {
        delayMs = Math.min(delayMs * 2, MAX_RESTART_DELAY_MS);
      }
    }
  }

  let worker = await startThread();

  function send(request: Outgoing, transfer: ArrayBuffer[] = []): Promise<PgliteReply> {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    return new Promise<PgliteReply>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id }, transfer);
    });
  }

  async function run<R>(request: Outgoing): Promise<QueryResult<R>> {
    return answer(await send(request));
  }

  /** A statement, its long strings sent as UTF-8 (pglite-encoded-params.ts). */
  async function runQuery<R>(
    text: string,
    params: readonly unknown[] | undefined,
    tx?: number,
  ): Promise<QueryResult<R>> {
    const sent = params === undefined ? undefined : encodeLongStrings(params);
    const request: Outgoing = {
      op: 'query',
      text,
      ...(tx !== undefined && { tx }),
      ...(sent !== undefined && { params: sent.params }),
      ...(sent?.encoded !== undefined && { encoded: sent.encoded }),
    };
    return answer(await send(request, sent?.transfer));
  }

  function answer<R>(reply: PgliteReply): QueryResult<R> {
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
      return runQuery<R>(text, params);
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
          return runQuery<R>(text, params, id);
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
      stopRestarting.abort();
      notifications.clear();
      try {
        await done;
      } finally {
        await worker.terminate();
      }
    },
  };
}
