import { EventEmitter } from 'node:events';
import type { SqlClient, SqlExecutor } from './types.js';

/**
 * LISTEN/NOTIFY for a PGlite database, in this process: NOTIFY does not cross PGlite connections, and both
 * PGlite clients (pglite-client.ts, pglite-thread-client.ts) answer their listeners here. A notify inside a
 * transaction is delivered after that transaction commits and dropped when it rolls back.
 */
export class InProcessNotifications {
  private readonly emitter = new EventEmitter();
  /** Open transactions and the channels notified inside them. */
  private readonly pending = new WeakMap<SqlExecutor, Set<string>>();
  private readonly transactionExecutors = new WeakSet<SqlExecutor>();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** tx has begun: notifies inside it wait for its commit. */
  opened(tx: SqlExecutor): void {
    this.transactionExecutors.add(tx);
    this.pending.set(tx, new Set());
  }

  /** tx has ended; returns what it notified (deliver it when, and only when, tx committed). */
  ended(tx: SqlExecutor): Set<string> {
    const notified = this.pending.get(tx) ?? new Set<string>();
    this.pending.delete(tx);
    return notified;
  }

  deliver(channels: Iterable<string>): void {
    const toDeliver = [...channels];
    if (toDeliver.length === 0) return;
    // Never inside the notifier's call stack, as with a real NOTIFY.
    setImmediate(() => {
      for (const channel of toDeliver) this.emitter.emit(channel);
    });
  }

  /** A client's listen and notify, refused once `assertOpen` throws (the client is closed). */
  clientMethods(assertOpen: () => void): Pick<SqlClient, 'listen' | 'notify'> {
    return {
      listen: async (channel, onNotify) => {
        assertOpen();
        const entry = () => onNotify();
        this.emitter.on(channel, entry);
        return async () => {
          this.emitter.off(channel, entry);
        };
      },
      notify: async (channel, tx) => {
        assertOpen();
        const inTransaction = tx === undefined ? undefined : this.pending.get(tx);
        if (inTransaction !== undefined) {
          inTransaction.add(channel);
          return;
        }
        if (tx !== undefined && this.transactionExecutors.has(tx))
          throw new Error('This transaction has already finished');
        // Outside any transaction (tx omitted or the client itself): there is nothing to wait for.
        this.deliver([channel]);
      },
    };
  }

  clear(): void {
    this.emitter.removeAllListeners();
  }
}
