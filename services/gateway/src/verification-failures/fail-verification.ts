import { VerificationEvent, type VerificationFailureReason } from '@vop/contracts';
import { ConcurrencyError, type EventStore } from '@vop/event-store';
import {
  decideVerification,
  evolveVerification,
  initialVerificationState,
  VerificationNotPendingError,
  verificationStreamId,
} from '@vop/verifications';

export interface FailVerification {
  verificationId: string;
  reason: VerificationFailureReason;
  failedAt: string;
}

/**
 * Appends VerificationFailed to the verification's stream when it is still pending; true when it did.
 * The read model row is locked first: once this gateway has recorded the verification's completion, a
 * failure is never appended. A completion already on the topic but not yet read here is the one race
 * left, and the topic's order settles it: every reader keeps the first end it reads.
 */
export async function failVerification(
  store: EventStore,
  command: FailVerification,
): Promise<boolean> {
  const streamId = verificationStreamId(command.verificationId);
  try {
    return await store.sql.transaction(async (tx) => {
      const { rows } = await tx.query<{ status: string }>(
        `SELECT status FROM ${store.schema}.verifications WHERE id = $1 FOR UPDATE`,
        [command.verificationId],
      );
      if (rows[0]?.status !== 'PENDING') return false;
      const stored = await store.readStream(streamId, { tx });
      const state = stored
        .map(({ type, data }) => VerificationEvent.parse({ type, data }))
        .reduce(evolveVerification, initialVerificationState);
      const failed = decideVerification({ type: 'FailVerification', ...command }, state);
      const request = stored[0];
      const metadata: Record<string, string> = {
        correlationId: request?.metadata.correlationId ?? command.verificationId,
        ...(request && { causationId: request.eventId }),
      };
      await store.append(
        streamId,
        failed.map(({ type, data }) => ({ type, data, metadata })),
        { expectedVersion: stored.length, tx },
      );
      return true;
    });
  } catch (error) {
    // Ended already, or another gateway instance failed it first.
    if (error instanceof VerificationNotPendingError || error instanceof ConcurrencyError)
      return false;
    throw error;
  }
}
