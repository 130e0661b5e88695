import type { BatchCompletedData } from '@vop/contracts';

/** Which request form a batch came in: IBAN entries (form 2) or account-number entries (form 1). */
export type BatchForm = 'iban' | 'account-number';

/** A form 1 entry's outcome judged at submission: its account unknown or closed (account-number-judge.ts). */
export interface EntryJudgement {
  entryId: string;
  outcome: 'MTCH' | 'CMTC' | 'NMTC' | 'NOAP';
  score: number;
  reasons: string[];
}

export interface BatchSubmittedData {
  batchId: string;
  participant: string;
  form: BatchForm;
  total: number;
  /** SHA-256 of the entries as submitted: the same batch id with other entries is a conflict. */
  entriesDigest: string;
  submittedAt: string;
}

/**
 * One entry's end as recorded by the batch (the first end of each entry only): a matcher outcome, or
 * FAILED with the failure's reason. `matchedName` stays encrypted, as the completion carried it.
 */
export interface EntryAnswer {
  entryId: string;
  outcome: string;
  score: number;
  matchedName?: string;
  reasons: string[];
}

export type BatchEvent =
  | { type: 'BatchSubmitted'; data: BatchSubmittedData }
  | { type: 'BatchEntriesJudged'; data: { batchId: string; judgements: EntryJudgement[] } }
  | {
      type: 'BatchEntriesAnswered';
      data: { batchId: string; answers: EntryAnswer[]; answeredAt: string };
    }
  | { type: 'BatchCompleted'; data: BatchCompletedData };

export type BatchState =
  | { status: 'none' }
  | { status: 'submitted'; submitted: BatchSubmittedData }
  | { status: 'completed'; submitted: BatchSubmittedData };

export const initialBatchState: BatchState = { status: 'none' };

export type BatchCommand =
  | {
      type: 'SubmitBatch';
      batch: Omit<BatchSubmittedData, 'submittedAt'>;
      submittedAt: string;
      /** Form 1: the entries judged at submission; when they are all of them, the batch completes at once. */
      judgements?: EntryJudgement[];
    }
  | {
      type: 'CompleteBatch';
      counts: { successful: number; failed: number };
      completedAt: string;
    };

export class BatchConflictError extends Error {
  constructor(readonly batchId: string) {
    super('A batch with this batchId was submitted with other entries');
    this.name = 'BatchConflictError';
  }
}

export class BatchNotRunningError extends Error {
  constructor(readonly batchId: string) {
    super('The batch is not running: unknown, or completed already');
    this.name = 'BatchNotRunningError';
  }
}

function completed(
  submitted: BatchSubmittedData,
  counts: { successful: number; failed: number },
  completedAt: string,
): BatchEvent {
  const { batchId, participant, total, submittedAt } = submitted;
  // A batch whose every entry failed is FAILED; one answered entry makes it COMPLETED.
  const status = counts.failed >= total ? 'FAILED' : 'COMPLETED';
  return {
    type: 'BatchCompleted',
    data: { batchId, participant, status, total, ...counts, submittedAt, completedAt },
  };
}

/** Pure: the events a command yields on a batch; the same submission again yields none (idempotent). */
export function decideBatch(command: BatchCommand, state: BatchState): BatchEvent[] {
  switch (command.type) {
    case 'SubmitBatch': {
      if (state.status !== 'none') {
        if (state.submitted.entriesDigest !== command.batch.entriesDigest)
          throw new BatchConflictError(command.batch.batchId);
        return [];
      }
      const submitted = { ...command.batch, submittedAt: command.submittedAt };
      const events: BatchEvent[] = [{ type: 'BatchSubmitted', data: submitted }];
      if (command.judgements === undefined || command.judgements.length === 0) return events;
      const { batchId } = submitted;
      events.push({
        type: 'BatchEntriesJudged',
        data: { batchId, judgements: command.judgements },
      });
      const successful = command.judgements.length;
      if (successful < submitted.total) return events;
      events.push(completed(submitted, { successful, failed: 0 }, command.submittedAt));
      return events;
    }
    case 'CompleteBatch': {
      if (state.status !== 'submitted') throw new BatchNotRunningError('');
      return [completed(state.submitted, command.counts, command.completedAt)];
    }
  }
}

export function evolveBatch(state: BatchState, event: BatchEvent): BatchState {
  switch (event.type) {
    case 'BatchSubmitted':
      return state.status === 'none' ? { status: 'submitted', submitted: event.data } : state;
    case 'BatchEntriesJudged':
    case 'BatchEntriesAnswered':
      return state;
    case 'BatchCompleted':
      return state.status === 'submitted' ? { ...state, status: 'completed' } : state;
  }
}

/**
 * The batch stream: batch ids are the caller's, so two participants may choose the same one. The batch
 * id comes first: it cannot hold `|`, so the id reads back unambiguously.
 */
export function batchStreamId(participant: string, batchId: string): string {
  return `batch|${batchId}|${participant}`;
}
