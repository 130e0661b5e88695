import {
  AccountNumberBatchSubmission,
  BatchId,
  batchResultCsvRecord,
  batchResultsCsvHeader,
  BatchSubmission,
  type BatchAccepted,
  type BatchStatus,
} from '@vop/contracts';
import { ApiError, errors, parseBody, parseParam, principalOf, createRouter } from '@vop/http';
import type { FieldCipher } from '@vop/personal-data';
import { type Request, type Response, type Router } from 'express';
import { BatchConflictError } from './decider.js';
import type { BatchCommands } from './command-handler.js';
import { renderBatchResults } from './results.js';
import { entriesPage, findBatch, type BatchRow } from './status-read-model.js';
import { parseAccountNumberEntries, parseIbanEntries } from './submission.js';
import { readCsvEntries, readJsonBody, readNdjsonEntries } from './upload.js';

export interface BatchRoutesOptions {
  commands: BatchCommands;
  sql: import('@vop/event-store').SqlExecutor;
  schema: string;
  cipher: FieldCipher;
}

const PAGE_DEFAULT = 1000;
const PAGE_MAX = 10_000;

const unknownBatch = (): ApiError => errors.notFound('NOT_FOUND', 'No batch with this batchId');
const badBatchId = (): ApiError =>
  new ApiError(400, 'INVALID_REQUEST', 'batchId must be 1-100 of A-Z a-z 0-9 . _ : -', {
    field: 'batchId',
  });

/** Batches are read only by the participant that submitted them (anyone else: 404). */
function participantOf(res: Response): string {
  const participant = principalOf(res)?.participantId;
  if (participant === undefined) throw errors.unauthorized();
  return participant;
}

/** Results are ready once every entry has ended: COMPLETED, or FAILED (every entry failed). */
const isFinished = (status: BatchRow['status']): boolean =>
  status === 'COMPLETED' || status === 'FAILED';

function renderStatus(row: BatchRow): BatchStatus {
  return {
    batchId: row.batch_id,
    status: row.status,
    progress: {
      total: row.total,
      processed: row.processed,
      successful: row.successful,
      failed: row.failed,
    },
    resultsReady: isFinished(row.status),
  };
}

/** Form 2 as JSON, CSV or NDJSON (the latter two name the batch in `?batchId=`), read as a stream. */
async function readIbanSubmission(req: Request) {
  if (req.is('text/csv') || req.is('application/x-ndjson')) {
    const batchId = parseParam(BatchId, req.query.batchId, badBatchId);
    const raw = req.is('text/csv') ? await readCsvEntries(req) : await readNdjsonEntries(req);
    return { batchId, entries: await parseIbanEntries(raw) };
  }
  if (!req.is('application/json')) throw errors.unsupportedMediaType();
  const body = parseBody(BatchSubmission, await readJsonBody(req, 'verifications'));
  return { batchId: body.batchId, entries: await parseIbanEntries(body.verifications) };
}

export function batchRoutes(options: BatchRoutesOptions): Router {
  const { commands, sql, schema, cipher } = options;
  const router = createRouter();

  router.post('/api/v1/batch', async (req, res) => {
    const participant = participantOf(res);
    const { batchId, entries } = await readIbanSubmission(req);
    try {
      const { status } = await commands.submitIbanBatch(participant, batchId, entries);
      res.status(202).json({ batchId, status } satisfies BatchAccepted);
    } catch (error) {
      if (error instanceof BatchConflictError)
        throw errors.conflict('BATCH_CONFLICT', 'This batchId was submitted with other entries');
      throw error;
    }
  });

  router.post('/verify/batch', async (req, res) => {
    const participant = participantOf(res);
    if (!req.is('application/json')) throw errors.unsupportedMediaType();
    const body = parseBody(AccountNumberBatchSubmission, await readJsonBody(req, 'accounts'));
    const entries = await parseAccountNumberEntries(body.accounts);
    const { batchId, status } = await commands.submitAccountNumberBatch(participant, entries);
    res.status(202).json({ batchId, status } satisfies BatchAccepted);
  });

  async function batchOf(req: Request, res: Response): Promise<BatchRow> {
    const batchId = parseParam(BatchId, req.params.batchId, unknownBatch);
    const row = await findBatch(sql, schema, participantOf(res), batchId);
    if (!row) throw unknownBatch();
    return row;
  }

  router.get('/api/v1/batch/:batchId', async (req, res) => {
    res.json(renderStatus(await batchOf(req, res)));
  });

  router.get('/api/v1/batch/:batchId/results', async (req, res) => {
    const batch = await batchOf(req, res);
    if (!isFinished(batch.status)) {
      res.setHeader('Retry-After', '1');
      res.status(202).json({ batchId: batch.batch_id, status: batch.status });
      return;
    }
    const key = { participant: participantOf(res), batchId: batch.batch_id };
    const format = req.accepts(['application/json', 'application/x-ndjson', 'text/csv']);
    if (format === 'application/x-ndjson' || format === 'text/csv') {
      // CSV cells that would start a formula are neutralised (OWASP), the same as vop-batch writes them.
      const csv = format === 'text/csv';
      res.type(format);
      if (csv) res.write(batchResultsCsvHeader());
      for (let after = 0; ;) {
        const rows = await entriesPage(sql, schema, key, after, PAGE_DEFAULT);
        for (const result of await renderBatchResults(cipher, rows))
          res.write(csv ? batchResultCsvRecord(result) : `${JSON.stringify(result)}\n`);
        if (rows.length < PAGE_DEFAULT) break;
        after = (rows.at(-1) as { seq: number }).seq;
      }
      res.end();
      return;
    }
    const after = req.query.cursor === undefined ? 0 : Number(req.query.cursor);
    const limit = Math.min(
      PAGE_MAX,
      Math.max(1, Number(req.query.limit ?? PAGE_DEFAULT) || PAGE_DEFAULT),
    );
    if (!Number.isInteger(after) || after < 0)
      throw new ApiError(400, 'INVALID_REQUEST', 'Invalid cursor', { field: 'cursor' });
    const rows = await entriesPage(sql, schema, key, after, limit + 1);
    const page = rows.slice(0, limit);
    res.json({
      batchId: batch.batch_id,
      results: await renderBatchResults(cipher, page),
      ...(rows.length > limit && { nextCursor: String((page.at(-1) as { seq: number }).seq) }),
    });
  });

  return router;
}
