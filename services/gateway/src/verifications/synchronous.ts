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
import type { CompletionWaiters } from './waiters.js';

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

  return { requestFor, verifyNow, recordOnly };
}
export type SynchronousVerifier = ReturnType<typeof synchronousVerifier>;
