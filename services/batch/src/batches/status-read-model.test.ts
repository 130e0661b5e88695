import { describe, it } from 'node:test';
import type { VerificationCompletedData, VerificationFailedData } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { projectionSpec } from '@vop/testing';
import {
  answerOf,
  entriesPage,
  findBatch,
  insertBatchEntries,
  insertSubmittedBatch,
  migrateBatchReadModels,
  recordEntryAnswers,
} from './status-read-model.js';

const SCHEMA = 'batch';
const participant = 'PSDDE-BAFIN-123456';
const batchId = 'payroll-2026-03';
const submittedAt = '2026-03-01T09:00:00.000Z';

type Given =
  | { type: 'Submitted'; entryIds: string[] }
  | { type: 'VerificationCompleted'; data: VerificationCompletedData }
  | { type: 'VerificationFailed'; data: VerificationFailedData };

const spec = projectionSpec<Given>({
  migrate: (sql) => migrateBatchReadModels(sql, SCHEMA),
  project: async (tx, events) => {
    for (const event of events) {
      if (event.type === 'Submitted') {
        const total = event.entryIds.length;
        await insertSubmittedBatch(tx, SCHEMA, {
          participant,
          batchId,
          form: 'iban',
          total,
          submittedAt,
        });
        await insertBatchEntries(tx, SCHEMA, { participant, batchId }, event.entryIds);
      } else {
        const answer = answerOf(event);
        await recordEntryAnswers(tx, SCHEMA, answer ? [answer] : [], submittedAt);
      }
    }
  },
});

function completion(entryId: string, outcome: 'MTCH' | 'NMTC'): Given {
  return {
    type: 'VerificationCompleted',
    data: {
      verificationId: '5b7e3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a',
      family: 'batch',
      outcome,
      score: outcome === 'MTCH' ? 1 : 0.2,
      reasons: [],
      participant,
      batch: { batchId, entryId },
      completedAt: submittedAt,
    },
  };
}

function failure(entryId: string): Given {
  return {
    type: 'VerificationFailed',
    data: {
      verificationId: '6c8f4d2b-0e3a-4f9c-b2d4-8a7f6e5d4c3b',
      family: 'batch',
      reason: 'TIMEOUT',
      participant,
      batch: { batchId, entryId },
      failedAt: submittedAt,
    },
  };
}

const status = (sql: SqlExecutor) => findBatch(sql, SCHEMA, participant, batchId);

describe('batch status read model', () => {
  it('given a submitted batch, then it is PENDING with nothing processed', async () => {
    await spec
      .given([{ type: 'Submitted', entryIds: ['a', 'b'] }])
      .when([])
      .then(status, {
        batch_id: batchId,
        status: 'PENDING',
        total: 2,
        processed: 0,
        successful: 0,
        failed: 0,
      });
  });

  it('given a submitted batch, when one entry is answered, then it is PROCESSING', async () => {
    await spec
      .given([{ type: 'Submitted', entryIds: ['a', 'b'] }])
      .when([completion('a', 'MTCH')])
      .then(status, {
        batch_id: batchId,
        status: 'PROCESSING',
        total: 2,
        processed: 1,
        successful: 1,
        failed: 0,
      });
  });

  it('given an answered entry, when its completion comes again, then it is counted once', async () => {
    await spec
      .given([{ type: 'Submitted', entryIds: ['a', 'b'] }, completion('a', 'MTCH')])
      .when([completion('a', 'NMTC'), completion('b', 'NMTC')])
      .then(
        async (sql) => ({
          batch: (await status(sql))?.status,
          outcomes: (await entriesPage(sql, SCHEMA, { participant, batchId }, 0, 10)).map(
            (row) => row.outcome,
          ),
        }),
        { batch: 'COMPLETED', outcomes: ['MTCH', 'NMTC'] },
      );
  });

  it('a completion of a single check (no batch entry) changes nothing', async () => {
    const single = completion('a', 'MTCH') as { data: VerificationCompletedData };
    const { batch: _batch, ...data } = single.data;
    await spec
      .given([{ type: 'Submitted', entryIds: ['a'] }])
      .when([{ type: 'VerificationCompleted', data }])
      .then(async (sql) => (await status(sql))?.processed, 0);
  });

  it('given a submitted batch, when one entry fails and the other completes, then COMPLETED with one failed', async () => {
    await spec
      .given([{ type: 'Submitted', entryIds: ['a', 'b'] }])
      .when([failure('a'), completion('b', 'MTCH')])
      .then(
        async (sql) => ({
          batch: await status(sql),
          outcomes: (await entriesPage(sql, SCHEMA, { participant, batchId }, 0, 10)).map((row) => [
            row.outcome,
            row.reasons,
          ]),
        }),
        {
          batch: {
            batch_id: batchId,
            status: 'COMPLETED',
            total: 2,
            processed: 2,
            successful: 1,
            failed: 1,
          },
          outcomes: [
            ['FAILED', ['TIMEOUT']],
            ['MTCH', []],
          ],
        },
      );
  });

  it('given a submitted batch, when every entry fails, then it is FAILED', async () => {
    await spec
      .given([{ type: 'Submitted', entryIds: ['a', 'b'] }])
      .when([failure('a'), failure('b')])
      .then(status, {
        batch_id: batchId,
        status: 'FAILED',
        total: 2,
        processed: 2,
        successful: 0,
        failed: 2,
      });
  });

  it('given a completed entry, when its failure comes after, then the first end wins', async () => {
    await spec
      .given([{ type: 'Submitted', entryIds: ['a', 'b'] }, completion('a', 'NMTC')])
      .when([failure('a'), failure('b')])
      .then(
        async (sql) => ({
          batch: await status(sql),
          outcomes: (await entriesPage(sql, SCHEMA, { participant, batchId }, 0, 10)).map(
            (row) => row.outcome,
          ),
        }),
        {
          batch: {
            batch_id: batchId,
            status: 'COMPLETED',
            total: 2,
            processed: 2,
            successful: 1,
            failed: 1,
          },
          outcomes: ['NMTC', 'FAILED'],
        },
      );
  });
});
