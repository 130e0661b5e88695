import { v7 as timeOrderedUuid } from 'uuid';
import type { PriorityGate } from '@vop/messaging';
import type { AccountCopyAtCommit } from '@vop/verifications';
import { randomUUID } from 'node:crypto';
import { z } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { ApiError, errors, parseParam, requestMetadata, createRouter } from '@vop/http';
import type { Logger } from '@vop/observability';
import type { FieldCipher } from '@vop/personal-data';
import { type Request, type Response, type Router } from 'express';
import { auditActorOf } from '../../audit/actor.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { markAudited } from '../../audit/audit-writes.js';
import { findImport, finishImport, startImport } from './import-read-model.js';
import type { ChecksAtOtherGateways } from './checks-at-other-gateways.js';
import { ImportPacer, type ChecksElsewhere } from './import-pacer.js';
import { runAccountImport } from './import-run.js';
import { ImportSourceError, importRecords, type ImportFormat } from './record-sources.js';

export const IMPORT_PATH = '/admin/accounts/import';

export interface AccountImportRoutesOptions {
  store: EventStore;
  /** The copies of the accounts that decisions read, written with each chunk. */
  copy?: AccountCopyAtCommit;
  cipher: FieldCipher;
  audit: AuditLog;
  logger: Logger;
  clock: () => Date;
  newId?: () => string;
  /**
   * Ids of the accounts an import opens. Default time-ordered (UUIDv7): an import of millions
   * appends to the indexes keyed by account (streams, read models, copies, keys) at their end.
   */
  newAccountId?: () => string;
  /** Rows per transaction (default: 1000 on PostgreSQL, 100 on PGlite, which serialises everything). */
  chunkRows?: number;
  /**
   * Chunks grow from chunkRows while a chunk's transaction stays this short, up to 2,000 rows on
   * PGlite and 5,000 on PostgreSQL (default with the default chunkRows: 100 ms on PGlite, 50 ms on
   * PostgreSQL): unchanged rows of a re-import take a fraction of the time of new ones. Only while no
   * single check comes: beside them a chunk is sized to take a few milliseconds. On PGlite a chunk of
   * new records has fixed costs of a tenth of its time at 20 ms; at 100 ms a check that comes after a
   * quiet spell waits for at most one such chunk (bench/RESULTS.md §5, the two threads no longer take turns).
   */
  chunkMs?: number;
  /**
   * The least rest after each chunk while single checks come, relative to its time
   * (`ImportPacer`; default: 0 on PostgreSQL, 1 on PGlite). In a quiet spell there is none: it left
   * PGlite's one thread idle for nobody (bench/RESULTS.md §5).
   */
  leastRest?: number;
  /** What the import's chunks and slices yield to: single checks (the gateway's priorities). */
  gate?: PriorityGate;
  /** The least share of its pace an import keeps while single checks slow it (import-pacer.ts). */
  leastShare?: number;
  /** The single checks at the deployment's other gateways, which an import yields to as well. */
  otherGateways?: Pick<ChecksAtOtherGateways, 'watch'>;
}

const ImportId = z.uuid();
const importNotFound = (): ApiError => errors.notFound('IMPORT_NOT_FOUND', 'No such import');

function drained(req: Request): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.unpipe();
    req.once('end', resolve).once('close', resolve).once('error', resolve);
    req.resume();
  });
}

function formatOf(req: Request): ImportFormat {
  if (req.is(['application/x-ndjson', 'application/jsonl', 'application/jsonlines']))
    return 'ndjson';
  if (req.is(['text/csv'])) return 'csv';
  throw new ApiError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'Content-Type must be application/x-ndjson or text/csv',
  );
}

/**
 * Bulk import of the bank's account records: POST streams NDJSON or CSV, upserting by IBAN chunk by
 * chunk, and answers the summary when the upload ends; GET reads an import's status at any time (a
 * client may name the import with `?importId=` to follow it while it runs).
 */
export function accountImportRoutes(options: AccountImportRoutesOptions): Router {
  const { store, audit, logger, clock } = options;
  const newId = options.newId ?? randomUUID;
  const onPglite = store.sql.kind === 'pglite';
  const chunkRows = options.chunkRows ?? (onPglite ? 100 : 1000);
  const leastRest = options.leastRest ?? (onPglite ? 1 : 0);
  // Rows per chunk given by the caller stay fixed (tests cross chunks on purpose).
  const chunkMs =
    options.chunkMs ?? (options.chunkRows === undefined ? (onPglite ? 100 : 50) : undefined);
  // PostgreSQL: a chunk of new records (~100 ms a thousand) stays at chunkRows; the nightly file's
  // unchanged rows, which write next to nothing, go in chunks of up to 5,000 (fewer round trips).
  const maxChunkRows = Math.max(chunkRows, onPglite ? 2000 : 5000);
  // Beside single checks: PGlite holds its one backend for a chunk, so its chunks are shorter.
  const checksChunkMs = onPglite ? 4 : 5;
  const { gate, leastShare } = options;
  const router = createRouter();
  const statusUrl = (id: string) => `${IMPORT_PATH}/${id}`;

  async function answerStatus(res: Response, id: string, status: number): Promise<void> {
    const found = await findImport(store.sql, store.schema, id);
    if (found === undefined) throw importNotFound();
    res.status(status).setHeader('Location', statusUrl(id));
    res.json({ ...found, statusUrl: statusUrl(id) });
  }

  router.post(IMPORT_PATH, async (req, res) => {
    const format = formatOf(req);
    const requested = req.query.importId;
    const importId =
      requested === undefined
        ? newId()
        : parseParam(
            ImportId,
            requested,
            () =>
              new ApiError(400, 'INVALID_FIELD', 'importId must be a UUID', { field: 'importId' }),
          );
    const actor = auditActorOf(res);
    const startedAt = clock().toISOString();
    if (!(await startImport(store.sql, store.schema, { id: importId, format, actor, startedAt })))
      throw errors.conflict('IMPORT_EXISTS', 'An import with this id exists');
    markAudited(res.locals);
    const log = logger.child({ importId, format });
    let failure: string | undefined;
    try {
      const run = (elsewhere?: ChecksElsewhere) =>
        runAccountImport(
          {
            importId,
            store,
            ...(options.copy && { copy: options.copy }),
            cipher: options.cipher,
            clock,
            newId: options.newAccountId ?? timeOrderedUuid,
            chunkRows,
            ...(chunkMs !== undefined && { chunkMs, maxChunkRows }),
            ...(gate && {
              pacer: new ImportPacer(gate, { leastShare, leastRest, elsewhere }),
              checksChunkMs,
            }),
            overlap: !onPglite,
            // PGlite: no gate (measured: a chunk waiting for checks in flight made their p99 worse there,
            // where the rest after each chunk already leaves them half the database).
            ...(gate && !onPglite && { gate }),
            metadata: { ...requestMetadata(req), importId },
          },
          importRecords(req, format),
        );
      const watched = () => (options.otherGateways ? options.otherGateways.watch(run) : run());
      // Checks beside the import are not counted among the gate's quiet ones.
      const rows = await (gate ? gate.background(watched) : watched());
      log.info({ rows }, 'account import completed');
    } catch (error) {
      failure =
        error instanceof ImportSourceError
          ? error.message
          : req.complete
            ? 'the import stopped on an internal error'
            : 'the upload was cut off';
      if (!(error instanceof ImportSourceError)) log.warn({ err: error }, 'account import failed');
    }
    const finishedAt = clock().toISOString();
    await finishImport(store.sql, store.schema, importId, {
      status: failure === undefined ? 'COMPLETED' : 'FAILED',
      finishedAt,
      ...(failure !== undefined && { failure }),
    });
    await audit.append({
      operation: `POST ${IMPORT_PATH}`,
      user: actor,
      result: failure === undefined ? 'success' : 'failure',
      target: importId,
      status: failure === undefined ? 201 : 400,
    });
    if (failure !== undefined) {
      // The rest of the upload is read and dropped, so the client can read the answer.
      await drained(req);
      res.setHeader('Location', statusUrl(importId));
      throw new ApiError(400, 'INVALID_IMPORT', `The import stopped: ${failure}`);
    }
    await answerStatus(res, importId, 201);
  });

  router.get(`${IMPORT_PATH}/:importId`, async (req, res) => {
    const id = parseParam(ImportId, req.params.importId, importNotFound);
    await answerStatus(res, id, 200);
  });

  return router;
}
