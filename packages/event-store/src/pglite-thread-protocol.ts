import type { EncodedParam } from './pglite-encoded-params.js';

/** The messages between pglite-thread-client.ts (the caller's thread) and pglite-thread.ts (PGlite's). */

export interface PgliteThreadData {
  /** A directory on disk; undefined keeps the database in memory. */
  dataDir?: string;
  /** The other databases of the folder older than this are frozen when it is opened (pglite-idle-databases.ts). */
  freezeIdleDatabasesOlderThan?: number;
}

/**
 * One statement to run. `tx` names the transaction it belongs to: `begin` opens it, `commit` or
 * `rollback` ends it; a statement without `tx` runs once no transaction is open.
 */
export type PgliteRequest =
  | {
      id: number;
      op: 'query';
      text: string;
      params?: unknown[];
      encoded?: EncodedParam[];
      tx?: number;
    }
  | { id: number; op: 'begin' | 'commit' | 'rollback'; tx: number }
  | { id: number; op: 'close' };

/** An error's fields as PGlite raised them (SQLSTATE `code`, `constraint`, ...): a thread boundary keeps only name and message of an Error. */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

export type PgliteReply =
  | { id: number; ok: true; rows: unknown[]; rowCount: number }
  | { id: number; ok: false; error: SerializedError };

/** Sent once, when PGlite is open (or could not be opened). */
export type PgliteStartup =
  | { ready: true; frozen: string[]; freezeFailed?: SerializedError }
  | { ready: false; error: SerializedError };

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function') continue;
    if (typeof value === 'object' && value !== null) continue;
    fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

export function deserializeError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  Object.assign(error, serialized.fields);
  return error;
}
