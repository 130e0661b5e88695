import { VerificationEvent, type VerificationFailureReason } from '@vop/contracts';
import {
  ConcurrencyError,
  handleCommand,
  type EventStore,
  type RecordedEvent,
} from '@vop/event-store';
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

const verificationDecider = {
  decide: decideVerification,
  evolve: evolveVerification,
  initialState: () => initialVerificationState,
};

/** A failure continues the request's correlation, caused by the request. */
function causedByRequest(
  stored: readonly RecordedEvent[],
  verificationId: string,
): Record<string, string> {
  const request = stored[0];
  return {
    correlationId: request?.metadata.correlationId ?? verificationId,
    ...(request && { causationId: request.eventId }),
  };
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
  try {
    return await store.sql.transaction(async (tx) => {
      const { rows } = await tx.query<{ status: string }>(
        `SELECT status FROM ${store.schema}.verifications WHERE id = $1 FOR UPDATE`,
        [command.verificationId],
      );
      if (rows[0]?.status !== 'PENDING') return false;
      await handleCommand(
        store,
        verificationStreamId(command.verificationId),
        verificationDecider,
        { type: 'FailVerification', ...command },
        {
          tx,
          parse: ({ type, data }) => VerificationEvent.parse({ type, data }),
          metadata: (stored) => causedByRequest(stored, command.verificationId),
        },
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
