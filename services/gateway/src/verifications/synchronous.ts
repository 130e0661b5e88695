import type {
  VerificationCompletedData,
  VerificationFailureReason,
  VerificationRequestedData,
  VerificationEnd,
} from '@vop/contracts';
import { errors, principalOf } from '@vop/http';
import { type FieldCipher, revealMatchedName } from '@vop/personal-data';
import {
  requestVerification,
  type RecordVerification,
  type VerificationRequestFields,
} from '@vop/verifications';
import type { Response } from 'express';
import type { PayeeBankAnswer } from '@vop/verifications';
import { routedToOf, type PayeeBanks } from '../requesting/ask-payee-bank.js';
import type { CompletionWaiters } from './waiters.js';

/** The requesting side, for the families a bank's own customers use (design §9). */
export interface RoutedChecks {
  banks: PayeeBanks;
  /** The answers of payee banks, by verification id, read by the recorder's round (`withPayeeBankAnswers`). */
  answers: Map<string, PayeeBankAnswer>;
  /** How long a synchronous caller's payee bank may take: the family's deadline less our own work. */
  deadlineMs: number;
}

export interface SynchronousVerifierOptions {
  /**
   * Records a request (event + row) and resolves with its end when it was decided at recording; see
   * packages/verifications/src/recorder.ts.
   */
  record: RecordVerification;
  /**
   * Whether `record` decides what it records (the gateway's own copy of the accounts): then a caller is
   * answered with the end `record` gives, and waits in `waiters` only for a check it left undecided.
   */
  decidedAtRecording?: boolean;
  /** Callers waiting for an end decided elsewhere (matching), or found by the read model's sweep. */
  waiters: CompletionWaiters;
  /** Decrypts the disclosed holder name for the answer. */
  cipher: FieldCipher;
  /** How long a synchronous caller waits for the outcome before the timeout error (2 s by default). */
  deadlineMs: number;
  clock: () => Date;
  newId: () => string;
  /** Absent: every check is decided against our own accounts (the responding side only). */
  routed?: RoutedChecks;
}

/** A verification that could not be completed, in the family's error format (the edge renders it). */
function failureError(reason: VerificationFailureReason): Error {
  return reason === 'TIMEOUT'
    ? errors.timeout('The verification could not be completed in time; retry the request')
    : errors.unavailable('The verification could not be completed; retry the request');
}

/** What every family that answers at once shares: building the request, recording it, awaiting the outcome. */
export function synchronousVerifier(options: SynchronousVerifierOptions) {
  const { record, waiters, cipher, deadlineMs, decidedAtRecording = false } = options;
  const ids = { newId: options.newId, now: options.clock };

  /** The request for fields, from the participant the edge authenticated. */
  function requestFor(
    res: Response,
    fields: Omit<VerificationRequestFields, 'participant'>,
  ): VerificationRequestedData {
    const participant = principalOf(res)?.participantId;
    return requestVerification(
      { ...fields, ...(participant !== undefined && { participant }) },
      ids,
    );
  }

  /**
   * Records the request and answers with its end: the one `record` gives when it decided the request,
   * else the one a waiter receives. A waiter for an end decided elsewhere is registered before the
   * commit, so no end can come first. Once recorded, the answer names the verification, a timeout
   * too: it completes and is readable later.
   */
  async function verifyNow(
    res: Response,
    request: VerificationRequestedData,
    metadata: Record<string, string>,
  ): Promise<VerificationCompletedData> {
    const { verificationId } = request;
    const started = performance.now();
    const elsewhere = decidedAtRecording ? undefined : waiters.wait(verificationId, deadlineMs);
    let decided: VerificationEnd | undefined;
    try {
      decided = await record({ data: request, metadata });
    } catch (error) {
      if (elsewhere !== undefined) waiters.cancel(verificationId);
      throw error;
    }
    res.setHeader('X-Verification-ID', verificationId);
    if (decided !== undefined && elsewhere !== undefined) waiters.cancel(verificationId);
    // Left undecided by a recorder that decides: its end is found by the sweep of the read model.
    const end =
      decided ??
      (await (elsewhere ??
        waiters.wait(verificationId, Math.max(0, deadlineMs - (performance.now() - started)))));
    if (!end) throw errors.timeout('No outcome within the deadline; retry the request');
    if (end.type === 'VerificationFailed') throw failureError(end.data.reason);
    return revealMatchedName(cipher, end.data);
  }

  /** Records the request only (request/result family): the caller reads the outcome later. */
  async function recordOnly(
    request: VerificationRequestedData,
    metadata: Record<string, string>,
  ): Promise<void> {
    await record({ data: request, metadata });
  }

  /** The request for a payee whose bank is not ours, naming that bank; undefined when it is ours. */
  function atOtherBank(request: VerificationRequestedData) {
    const bank = options.routed?.banks.otherBankOf(request, options.clock());
    if (bank === undefined) return undefined;
    const routedTo = routedToOf(bank);
    return { bank, request: { ...request, ...(routedTo && { routedTo }) } };
  }

  /**
   * A customer's check about a payee at any bank (families B, C, the /test page): decided here when
   * the payee's bank is ours; else that bank is asked first, within the caller's deadline, and its
   * answer recorded as the request's end in the same round as a local decision.
   */
  async function verifyAtPayeeBank(
    res: Response,
    request: VerificationRequestedData,
    metadata: Record<string, string>,
  ): Promise<VerificationCompletedData> {
    const routed = options.routed;
    const other = atOtherBank(request);
    if (routed === undefined || other === undefined) return verifyNow(res, request, metadata);
    const asked = other.request;
    const answer = await routed.banks.ask(asked, other.bank, routed.deadlineMs);
    routed.answers.set(request.verificationId, answer);
    let end: VerificationEnd | undefined;
    try {
      end = await record({ data: asked, metadata });
    } finally {
      routed.answers.delete(request.verificationId);
    }
    res.setHeader('X-Verification-ID', request.verificationId);
    if (end === undefined) throw errors.unavailable('The verification could not be recorded');
    if (end.type === 'VerificationFailed') throw failureError(end.data.reason);
    return revealMatchedName(cipher, end.data);
  }

  /**
   * The request/result family's receipt for a payee at any bank: one at another bank is recorded
   * undecided and marked for the requesting side's consumer, which asks that bank within the
   * scheme's 5 s (services/gateway/src/requesting/routing-consumer.ts).
   */
  async function recordForPayeeBank(
    request: VerificationRequestedData,
    metadata: Record<string, string>,
  ): Promise<void> {
    const other = atOtherBank(request);
    if (other === undefined) return recordOnly(request, metadata);
    await record({ data: { ...other.request, routing: 'payee-bank' }, metadata });
  }

  return { requestFor, verifyNow, recordOnly, verifyAtPayeeBank, recordForPayeeBank };
}
export type SynchronousVerifier = ReturnType<typeof synchronousVerifier>;
