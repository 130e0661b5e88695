import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { freezeIdleDatabases } from './pglite-idle-databases.js';
import { openPglite } from './pglite-open.js';
import { PreparedStatements } from './pglite-prepared.js';
import {
  serializeError,
  type SerializedError,
  type PgliteReply,
  type PgliteRequest,
  type PgliteStartup,
  type PgliteThreadData,
} from './pglite-thread-protocol.js';

/**
 * PGlite's own thread (started by pglite-thread-client.ts). Statements run one at a time in the order they
 * arrive, except that while a transaction is open only its own statements run: the others wait, in order,
 * until it commits or rolls back (PGlite has one backend, so a statement run meanwhile would run inside it).
 * The caller sends without waiting, so a round trip between the threads is paid per statement it awaits.
 */
type Unit =
  | { kind: 'statement'; request: PgliteRequest }
  | { kind: 'transaction'; tx: number; inbox: PgliteRequest[]; ended: boolean };

const port = parentPort;
if (port === null) throw new Error('pglite-thread.js runs as a worker thread');
const { dataDir, freezeIdleDatabasesOlderThan } = workerData as PgliteThreadData;

const units: Unit[] = [];
const transactions = new Map<number, Extract<Unit, { kind: 'transaction' }>>();
let running = false;
let db: PGlite;
let prepared: PreparedStatements;

async function execute(request: PgliteRequest): Promise<PgliteReply> {
  try {
    switch (request.op) {
      case 'query': {
        const result = await prepared.query(request.text, request.params, request.encoded);
        // PGlite reports affectedRows for writes and 0 for SELECT; node-postgres counts returned rows for SELECT.
        const rowCount = Math.max(result.affectedRows ?? 0, result.rows.length);
        return { id: request.id, ok: true, rows: result.rows, rowCount };
      }
      case 'begin':
      case 'commit':
      case 'rollback':
        await db.exec(request.op.toUpperCase());
        return { id: request.id, ok: true, rows: [], rowCount: 0 };
      case 'close':
        await db.close();
        return { id: request.id, ok: true, rows: [], rowCount: 0 };
    }
  } catch (error) {
    return { id: request.id, ok: false, error: serializeError(error) };
  }
}

/** A result that cannot cross the boundary (not cloneable) is answered as an error, never retried. */
function reply(message: PgliteReply): void {
  try {
    port!.postMessage(message);
  } catch (error) {
    port!.postMessage({
      id: message.id,
      ok: false,
      error: serializeError(error),
    } satisfies PgliteReply);
  }
}

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  try {
    while (units.length > 0) {
      const unit = units[0]!;
      if (unit.kind === 'statement') {
        units.shift();
        reply(await execute(unit.request));
        continue;
      }
      while (unit.inbox.length > 0 && !unit.ended) {
        const request = unit.inbox.shift()!;
        reply(await execute(request));
        if (request.op === 'commit' || request.op === 'rollback') unit.ended = true;
      }
      // The transaction's next statement has not arrived yet: everything behind it waits.
      if (!unit.ended) return;
      transactions.delete(unit.tx);
      units.shift();
    }
  } finally {
    running = false;
  }
}

function receive(request: PgliteRequest): void {
  if (request.op === 'begin') {
    const unit = { kind: 'transaction' as const, tx: request.tx, inbox: [request], ended: false };
    transactions.set(request.tx, unit);
    units.push(unit);
  } else if ('tx' in request && request.tx !== undefined) {
    const unit = transactions.get(request.tx);
    if (unit === undefined) {
      port!.postMessage({
        id: request.id,
        ok: false,
        error: { name: 'Error', message: 'This transaction has already finished', fields: {} },
      } satisfies PgliteReply);
      return;
    }
    unit.inbox.push(request);
  } else {
    units.push({ kind: 'statement', request });
  }
  void drain();
}

try {
  const open = () => openPglite(dataDir === undefined ? {} : { dataDir });
  db = await open();
  let frozen: string[] = [];
  let freezeFailed: SerializedError | undefined;
  // Upkeep, not a condition of serving: a failure is reported and the folder opened all the same.
  if (dataDir !== undefined) {
    try {
      frozen = await freezeIdleDatabases(db, dataDir, freezeIdleDatabasesOlderThan);
    } catch (error) {
      freezeFailed = serializeError(error);
    }
  }
  // Closed once it froze any (or failed on the way).
  if (db.closed) db = await open();
  prepared = new PreparedStatements(db);
  port.on('message', receive);
  port.postMessage({
    ready: true,
    frozen,
    ...(freezeFailed && { freezeFailed }),
  } satisfies PgliteStartup);
} catch (error) {
  port.postMessage({ ready: false, error: serializeError(error) } satisfies PgliteStartup);
}
