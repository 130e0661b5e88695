import { describe, it } from 'node:test';
import { deciderSpec } from '@vop/testing';
import {
  BatchConflictError,
  BatchNotRunningError,
  decideBatch,
  evolveBatch,
  initialBatchState,
  type BatchCommand,
  type BatchEvent,
  type BatchState,
  type BatchSubmittedData,
  type EntryJudgement,
} from './decider.js';

const spec = deciderSpec<BatchCommand, BatchEvent, BatchState>({
  decide: decideBatch,
  evolve: evolveBatch,
  initialState: initialBatchState,
});

const submittedAt = '2026-03-01T09:00:00.000Z';
const completedAt = '2026-03-01T09:00:04.000Z';
const batch = {
  batchId: 'payroll-2026-03',
  participant: 'PSDDE-BAFIN-123456',
  form: 'iban',
  total: 3,
  entriesDigest: 'digest-a',
} as const;
const submitted: BatchSubmittedData = { ...batch, submittedAt };
const submit = { type: 'SubmitBatch', batch, submittedAt } as const;
const completedEvent: BatchEvent = {
  type: 'BatchCompleted',
  data: {
    batchId: batch.batchId,
    participant: batch.participant,
    status: 'COMPLETED',
    total: 3,
    successful: 3,
    failed: 0,
    submittedAt,
    completedAt,
  },
};

describe('batch decider', () => {
  it('given nothing, when a batch is submitted, then BatchSubmitted with its digest and time', () => {
    spec
      .given([])
      .when(submit)
      .then([{ type: 'BatchSubmitted', data: submitted }]);
  });

  it('given a submitted batch, when the same entries are submitted again, then nothing (idempotent)', () => {
    spec
      .given([{ type: 'BatchSubmitted', data: submitted }])
      .when({ ...submit, submittedAt: completedAt })
      .then([]);
  });

  it('given a submitted batch, when other entries come under its id, then a conflict', () => {
    spec
      .given([{ type: 'BatchSubmitted', data: submitted }])
      .when({ ...submit, batch: { ...batch, entriesDigest: 'digest-b' } })
      .thenThrows(BatchConflictError);
  });

  it('given a submitted batch, when its last entry is answered, then BatchCompleted with the counts', () => {
    spec
      .given([{ type: 'BatchSubmitted', data: submitted }])
      .when({ type: 'CompleteBatch', counts: { successful: 3, failed: 0 }, completedAt })
      .then([completedEvent]);
  });

  it('given a submitted batch, when its last entry ends and some failed, then BatchCompleted COMPLETED with the failed count', () => {
    spec
      .given([{ type: 'BatchSubmitted', data: submitted }])
      .when({ type: 'CompleteBatch', counts: { successful: 1, failed: 2 }, completedAt })
      .then([{ ...completedEvent, data: { ...completedEvent.data, successful: 1, failed: 2 } }]);
  });

  it('given a submitted batch, when every entry failed, then BatchCompleted with status FAILED', () => {
    spec
      .given([{ type: 'BatchSubmitted', data: submitted }])
      .when({ type: 'CompleteBatch', counts: { successful: 0, failed: 3 }, completedAt })
      .then([
        {
          ...completedEvent,
          data: { ...completedEvent.data, status: 'FAILED', successful: 0, failed: 3 },
        },
      ]);
  });

  it('given a completed batch, when it completes again, then it is refused', () => {
    spec
      .given([{ type: 'BatchSubmitted', data: submitted }, completedEvent])
      .when({ type: 'CompleteBatch', counts: { successful: 3, failed: 0 }, completedAt })
      .thenThrows(BatchNotRunningError);
  });

  it('given nothing, when a form 1 batch is submitted with its judgements, then it is judged and completed at once', () => {
    const judgements: EntryJudgement[] = [
      { entryId: '1', outcome: 'NOAP', score: 0, reasons: ['ACCOUNT_NOT_FOUND'] },
    ];
    const form1 = { ...batch, form: 'account-number', total: 1 } as const;
    spec
      .given([])
      .when({ type: 'SubmitBatch', batch: form1, submittedAt, judgements: [...judgements] })
      .then([
        { type: 'BatchSubmitted', data: { ...form1, submittedAt } },
        {
          type: 'BatchEntriesJudged',
          data: { batchId: batch.batchId, judgements: [...judgements] },
        },
        {
          type: 'BatchCompleted',
          data: {
            batchId: batch.batchId,
            participant: batch.participant,
            status: 'COMPLETED',
            total: 1,
            successful: 1,
            failed: 0,
            submittedAt,
            completedAt: submittedAt,
          },
        },
      ]);
  });

  it('given nothing, when a form 1 batch is submitted with some entries judged, then they are judged and the batch runs on', () => {
    const judgements: EntryJudgement[] = [
      { entryId: '2', outcome: 'NOAP', score: 0, reasons: ['ACCOUNT_CLOSED'] },
    ];
    const form1 = { ...batch, form: 'account-number', total: 2 } as const;
    spec
      .given([])
      .when({ type: 'SubmitBatch', batch: form1, submittedAt, judgements: [...judgements] })
      .then([
        { type: 'BatchSubmitted', data: { ...form1, submittedAt } },
        {
          type: 'BatchEntriesJudged',
          data: { batchId: batch.batchId, judgements: [...judgements] },
        },
      ]);
  });

  it('given nothing, when a form 1 batch whose accounts are all known is submitted, then only BatchSubmitted', () => {
    const form1 = { ...batch, form: 'account-number', total: 2 } as const;
    spec
      .given([])
      .when({ type: 'SubmitBatch', batch: form1, submittedAt, judgements: [] })
      .then([{ type: 'BatchSubmitted', data: { ...form1, submittedAt } }]);
  });
});
