import { BankCodeTableQuery } from '@vop/contracts';
import { ApiError, createRouter, errors, parseParam } from '@vop/http';
import type { Router } from 'express';
import { auditActorOf } from '../audit/actor.js';
import { parseBankCodeCsv, type BankCodeProblem } from './bank-code-csv.js';
import type { BankCodeTable } from './bank-code-table.js';
import { LoadVersionMismatchError } from './load-version-mismatch.js';
import { expectedVersionOf, sendVersion } from './versioned-load.js';

/** 200,000 rows of `country,bank_code,bic` and room for quoting. */
export const BANK_CODES_BODY_LIMIT = '16mb';
export const BANK_CODES_PATH = '/admin/bank-codes';

/** One 400 for the whole file: the first problems in the message, the first line as the field. */
function refusal(problems: BankCodeProblem[], total: number): ApiError {
  const listed = problems.map((problem) => `line ${problem.line}, ${problem.message}`).join('; ');
  const more = total > problems.length ? ` (and ${total - problems.length} more)` : '';
  const count = total === 1 ? 'One row is' : `${total} rows are`;
  return new ApiError(400, 'INVALID_REQUEST', `${count} invalid: ${listed}${more}`, {
    field: `line ${problems[0]?.line ?? 1}`,
  });
}

/**
 * Management of the bank-code table (admin certificate; every write audited by the edge): PUT a
 * `text/csv` file replaces the whole table and answers its version; GET says which one is served.
 */
export function bankCodeRoutes(options: { table: BankCodeTable; clock: () => Date }): Router {
  const { table } = options;
  const router = createRouter();

  router.put(BANK_CODES_PATH, async (req, res) => {
    if (typeof req.body !== 'string')
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be text/csv', {
        field: 'content-type',
      });
    const { tableId } = parseParam(
      BankCodeTableQuery,
      req.query,
      () =>
        new ApiError(
          400,
          'INVALID_REQUEST',
          'The one query parameter is tableId: one line of up to 100 characters',
          {
            field: 'tableId',
          },
        ),
    );
    const expectedVersion = expectedVersionOf(req.get('if-match'));
    const parsed = parseBankCodeCsv(req.body);
    if (!parsed.ok) throw refusal(parsed.problems, parsed.total);
    try {
      const loaded = await table.load({
        codes: parsed.codes,
        entries: parsed.entries,
        ...(tableId !== undefined && { tableId }),
        loadedBy: auditActorOf(res),
        now: options.clock(),
        ...(expectedVersion !== undefined && { expectedVersion }),
      });
      sendVersion(res, loaded);
    } catch (error) {
      if (error instanceof LoadVersionMismatchError)
        throw errors.conflict('VERSION_MISMATCH', error.message);
      throw error;
    }
  });

  router.get(BANK_CODES_PATH, (_req, res) => {
    const loaded = table.version();
    if (loaded === undefined) throw errors.notFound('NOT_FOUND', 'No bank-code table is loaded');
    sendVersion(res, loaded);
  });

  return router;
}
