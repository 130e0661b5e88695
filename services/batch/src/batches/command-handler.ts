import { setImmediate as nextTurn } from 'node:timers/promises';
import type {
  AccountNumberEntry,
  BatchEntry,
  BatchStatusValue,
  VerificationRequestedData,
  VerificationEnd,
} from '@vop/contracts';
import {
  aggregateStream,
  ConcurrencyError,
  handleCommand,
  type EventStore,
  type SqlExecutor,
} from '@vop/event-store';
import { type FieldCipher, protectTypedName } from '@vop/personal-data';
import { requestVerification } from '@vop/verifications';
import { findDomesticAccounts } from '../domestic-accounts/read-model.js';
import { judgeAccountNumberEntries } from './account-number-judge.js';
import type { DecideEntries, DecidedEntries } from './entry-decisions.js';
import { recordRequests, STAGED_PER_ROW, stageRequests, type StagedRequests } from './fan-out.js';
import type { EntryBudget } from './entry-budget.js';
import {
  batchStreamId,
  BatchNotRunningError,
  decideBatch,
  evolveBatch,
  initialBatchState,
  type BatchCommand,
  type BatchEvent,
  type BatchForm,
  type EntryJudgement,
} from './decider.js';
import {
  answerOf,
  answersOfJudgements,
  findBatch,
  insertBatchEntries,
  insertSubmittedBatch,
  recordEntryAnswers,
  type Answer,
} from './status-read-model.js';
import { entriesDigest } from './submission.js';

export interface BatchCommandsOptions {
  store: EventStore;
  cipher: FieldCipher;
  /** Entries drawn from the participant's budget before a new batch is recorded (entry-budget.ts). */
  entryBudget?: EntryBudget;
  clock: () => Date;
  newId: () => string;
  /**
   * Verification requests written in the submission's transaction; the rest are staged for the
   * fan-out (fan-out.ts). Default 1,000.
   */
  fanOutChunkSize?: number;
  /** Told after a submission staged chunks (wakes the fan-out). */
  onStaged?: () => void;
  /** Entries decided where they are recorded (entry-decisions.ts): the first chunk at submission. */
  decide?: DecideEntries;
  /** After a submission committed: how many entries its recorded ends answered. */
  onEntriesAnswered?: (answered: number) => void;
  /** After a form 1 submission committed: the entries it judged without matching (all NOAP). */
  onEntriesJudged?: (participant: string, judgements: readonly EntryJudgement[]) => void;
}

/** What a submission's transaction did beside recording the batch. */
interface Recorded {
  /** Chunks staged for the fan-out. */
  staged: boolean;
  /** Entries answered by the ends decided where they were recorded. */
  answered: number;
}

/** Typed names encrypted per group, the event loop free between groups (10,000 at once held it). */
const ENCRYPTION_GROUP = 250;

const batchDecider = {
  decide: decideBatch,
  evolve: evolveBatch,
  initialState: () => initialBatchState,
};

/**
 * Records batches: the submission and the read-model rows in one transaction, with one
 * VerificationRequested per entry (published by the outbox relay to the batch topic, keyed by IBAN),
 * the first chunk of them at once and the rest staged in that transaction for the fan-out.
 */
export function batchCommands(options: BatchCommandsOptions) {
  const { store, cipher, clock, newId, entryBudget } = options;
  const schema = store.schema;
  const chunkSize = options.fanOutChunkSize ?? 1000;

  /** Runs a submission; a concurrent identical one loses the race and is then judged idempotent. */
  async function submit(
    participant: string,
    command: Extract<BatchCommand, { type: 'SubmitBatch' }>,
    /** Records the batch's rows and requests; says whether it staged chunks, and what it answered. */
    record: (tx: SqlExecutor, events: BatchEvent[]) => Promise<Recorded>,
  ): Promise<{ status: BatchStatusValue; created: boolean }> {
    const { batchId } = command.batch;
    const streamId = batchStreamId(participant, batchId);
    for (let attempt = 0; ; attempt += 1) {
      const { state } = await aggregateStream(store, streamId, batchDecider);
      const events = decideBatch(command, state);
      if (events.length === 0) {
        const row = await findBatch(store.sql, schema, participant, batchId);
        return { status: row?.status ?? 'PENDING', created: false };
      }
      // A resubmission (no events) draws nothing; a refused or failed one gives its draw back.
      await entryBudget?.draw(participant, command.batch.total);
      try {
        let recorded: Recorded = { staged: false, answered: 0 };
        await store.sql.transaction(async (tx) => {
          await store.startStreams([{ streamId, events }], { tx });
          recorded = await record(tx, events);
        });
        if (recorded.staged) options.onStaged?.();
        if (recorded.answered > 0) options.onEntriesAnswered?.(recorded.answered);
        const ended = (type: BatchEvent['type']) => events.some((event) => event.type === type);
        const status = ended('BatchCompleted')
          ? 'COMPLETED'
          : ended('BatchEntriesJudged')
            ? 'PROCESSING'
            : 'PENDING';
        return { status, created: true };
      } catch (error) {
        await entryBudget?.refund(participant, command.batch.total);
        if (!(error instanceof ConcurrencyError) || attempt > 0) throw error;
      }
    }
  }

  /**
   * One VerificationRequested per entry, typed names encrypted. Every entry is requested at the
   * submission's instant, so all typed names share the day's key. Outside the transaction, so the key
   * comes from the key cache (on PGlite a lookup inside the transaction would wait behind it); the
   * first name alone fetches the key, the rest find it cached (10,000 concurrent misses would each ask
   * the keystore).
   */
  async function verificationRequests(
    participant: string,
    batchId: string,
    submittedAt: string,
    entries: readonly { entryId: string; iban: string; name: string; bic?: string }[],
  ) {
    const submittedOn = new Date(submittedAt);
    const ids = { newId, now: () => submittedOn };
    const plain = entries.map((entry) =>
      requestVerification(
        {
          family: 'batch',
          iban: entry.iban,
          name: entry.name,
          ...(entry.bic !== undefined && { partyAgentBic: entry.bic }),
          participant,
          batch: { batchId, entryId: entry.entryId },
        },
        ids,
      ),
    );
    const [first, ...rest] = plain;
    if (first === undefined) return [];
    const protectedRequests = [await protectTypedName(cipher, first)];
    for (let start = 0; start < rest.length; start += ENCRYPTION_GROUP) {
      const group = rest.slice(start, start + ENCRYPTION_GROUP);
      protectedRequests.push(
        ...(await Promise.all(group.map((request) => protectTypedName(cipher, request)))),
      );
      await nextTurn();
    }
    return protectedRequests;
  }

  /**
   * In the submission's transaction: the batch's rows, the first chunk of the entries' requests (for
   * the outbox) and the rest staged. Form 2 (`requestsNameEntries`): request i is entry i, whose row
   * comes with its request; form 1 numbers every entry here (some are judged at once). Returns the
   * ends of the first chunk's entries decided before the transaction (`firstChunk`), for the caller
   * to answer once every row of the batch is written (`answerEnds`).
   */
  async function recordSubmission(
    tx: SqlExecutor,
    batch: { participant: string; batchId: string; form: BatchForm; submittedAt: string },
    entryIds: string[],
    requests: VerificationRequestedData[],
    firstChunk: DecidedEntries | undefined,
  ): Promise<{ staged: boolean; ends: VerificationEnd[] }> {
    const { participant, batchId } = batch;
    const requestsNameEntries = batch.form === 'iban';
    await insertSubmittedBatch(tx, schema, { ...batch, total: entryIds.length });
    const ends = await recordRequests(tx, store, batchId, requests.slice(0, chunkSize), firstChunk);
    await insertBatchEntries(
      tx,
      schema,
      { participant, batchId },
      requestsNameEntries ? entryIds.slice(0, chunkSize) : entryIds,
    );
    const staged: StagedRequests[] = [];
    for (let start = chunkSize; start < requests.length; start += STAGED_PER_ROW) {
      const end = start + STAGED_PER_ROW;
      staged.push({
        entryOffset: start,
        ...(requestsNameEntries && { entryIds: entryIds.slice(start, end) }),
        requests: requests.slice(start, end),
      });
    }
    await stageRequests(tx, schema, { participant, batchId }, staged);
    return { staged: staged.length > 0, ends };
  }

  /** Answers entries by the ends decided where they were recorded, in the caller's transaction. */
  async function answerEnds(tx: SqlExecutor, ends: VerificationEnd[]): Promise<number> {
    const answers = ends.map(answerOf).filter((answer) => answer !== undefined);
    return answers.length > 0 ? answerEntries(tx, answers) : 0;
  }

  /** Form 2: entries fan out to matching as verification requests. */
  async function submitIbanBatch(participant: string, batchId: string, entries: BatchEntry[]) {
    const submittedAt = clock().toISOString();
    const command = {
      type: 'SubmitBatch',
      batch: {
        batchId,
        participant,
        form: 'iban',
        total: entries.length,
        entriesDigest: entriesDigest(entries),
      },
      submittedAt,
    } as const;
    const requests = await verificationRequests(
      participant,
      batchId,
      submittedAt,
      entries.map(({ id, iban, name, bic }) => ({
        entryId: id,
        iban,
        name,
        ...(bic !== undefined && { bic }),
      })),
    );
    const firstChunk = await options.decide?.(batchId, requests.slice(0, chunkSize));
    return submit(participant, command, async (tx) => {
      const { staged, ends } = await recordSubmission(
        tx,
        { participant, batchId, form: 'iban', submittedAt },
        entries.map((entry) => entry.id),
        requests,
        firstChunk,
      );
      return { staged, answered: await answerEnds(tx, ends) };
    });
  }

  /**
   * Form 1 (family D): entries whose account the batch service's domestic accounts read model knows
   * fan out as form 2 entries do, under the account's IBAN; the others are judged at once (unknown
   * or closed: account-number-judge.ts), all in the submission's transaction.
   */
  async function submitAccountNumberBatch(participant: string, entries: AccountNumberEntry[]) {
    const batchId = newId();
    const submittedAt = clock().toISOString();
    const numbered = entries.map((entry, index) => ({ entryId: String(index + 1), entry }));
    const accounts = await findDomesticAccounts(store.sql, schema, entries);
    const { judgements, lookups } = judgeAccountNumberEntries(numbered, accounts);
    const command = {
      type: 'SubmitBatch',
      batch: {
        batchId,
        participant,
        form: 'account-number',
        total: entries.length,
        entriesDigest: entriesDigest(entries),
      },
      submittedAt,
      judgements,
    } as const;
    const requests = await verificationRequests(participant, batchId, submittedAt, lookups);
    const firstChunk = await options.decide?.(batchId, requests.slice(0, chunkSize));
    const accepted = await submit(participant, command, async (tx) => {
      const { staged, ends } = await recordSubmission(
        tx,
        { participant, batchId, form: 'account-number', submittedAt },
        numbered.map(({ entryId }) => entryId),
        requests,
        firstChunk,
      );
      await recordEntryAnswers(
        tx,
        schema,
        answersOfJudgements(participant, batchId, judgements),
        submittedAt,
      );
      // After the judgements: the entry answered last completes the batch.
      return { staged, answered: await answerEnds(tx, ends) };
    });
    if (accepted.created && judgements.length > 0)
      options.onEntriesJudged?.(participant, judgements);
    return { batchId, ...accepted };
  }

  /**
   * Records the ends of batch entries (completions and failures) in the caller's transaction: the read
   * model keeps the first end of each entry, the batch's stream records those as BatchEntriesAnswered
   * (what the read models are rebuilt from), and a batch whose last entry this was gets BatchCompleted.
   */
  async function answerEntries(tx: SqlExecutor, answers: Answer[]): Promise<number> {
    const answeredAt = clock().toISOString();
    const { fresh, finished } = await recordEntryAnswers(tx, schema, answers, answeredAt);
    const byBatch = new Map<string, { participant: string; batchId: string; answers: Answer[] }>();
    for (const answer of fresh) {
      const key = batchStreamId(answer.participant, answer.batchId);
      const { participant, batchId } = answer;
      const batch = byBatch.get(key) ?? { participant, batchId, answers: [] };
      batch.answers.push(answer);
      byBatch.set(key, batch);
    }
    for (const { participant, batchId, answers: batchAnswers } of byBatch.values()) {
      const event: BatchEvent = {
        type: 'BatchEntriesAnswered',
        data: {
          batchId,
          answers: batchAnswers.map(({ participant: _p, batchId: _b, ...answer }) => answer),
          answeredAt,
        },
      };
      // recordEntryAnswers holds the batch's row lock: no other answerer appends to this stream now.
      await store.append(batchStreamId(participant, batchId), [event], {
        tx,
        expectedVersion: 'any',
      });
    }
    for (const { participant, batchId, successful, failed } of finished) {
      const complete = {
        type: 'CompleteBatch',
        counts: { successful, failed },
        completedAt: answeredAt,
      } as const;
      try {
        await handleCommand(store, batchStreamId(participant, batchId), batchDecider, complete, {
          tx,
        });
      } catch (error) {
        // Completed already: the decider refuses before anything is written.
        if (!(error instanceof BatchNotRunningError)) throw error;
      }
    }
    return fresh.length;
  }

  return { submitIbanBatch, submitAccountNumberBatch, answerEntries, answerEnds };
}

export type BatchCommands = ReturnType<typeof batchCommands>;
