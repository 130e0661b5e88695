import { VERIFICATION_EVENT_VERSION, VerificationRequested } from '@vop/contracts';
import { ConcurrencyError, type EventStore, type SqlExecutor } from '@vop/event-store';
import type { IntegrationEnvelope } from '@vop/contracts';
import { findAccountByIban } from '../accounts/projection.js';
import { decideVerification } from './decide.js';
import type { NameMatcher } from './matcher.js';

export interface Decision {
  family: string;
  outcome: string;
  reasons: string[];
  seconds: number;
}

export const completionStreamId = (verificationId: string): string => `verification-${verificationId}`;

/**
 * Decides one verification and records VerificationCompleted in this service's store (the outbox relay
 * publishes it), inside the transaction that marks the request processed.
 */
export function createVerificationHandler(options: {
  store: EventStore;
  matcher: NameMatcher;
  onDecided?: (decision: Decision) => void;
}) {
  const { store, matcher, onDecided } = options;
  return async (envelope: IntegrationEnvelope, tx: SqlExecutor): Promise<void> => {
    const request = VerificationRequested.parse({ type: envelope.type, data: envelope.data }).data;
    const account = await findAccountByIban(tx, store.schema, request.iban);
    const started = process.hrtime.bigint();
    const completed = decideVerification(request, account, matcher, new Date());
    onDecided?.({ family: completed.family, outcome: completed.outcome, reasons: completed.reasons, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    const metadata: Record<string, string> = {
      correlationId: envelope.correlationId,
      causationId: envelope.eventId,
      schemaVersion: String(VERIFICATION_EVENT_VERSION),
    };
    if (envelope.traceparent) metadata.traceparent = envelope.traceparent;
    try {
      await store.append(completionStreamId(request.verificationId), [{ type: 'VerificationCompleted', data: completed, metadata }], {
        expectedVersion: 'no_stream',
        tx,
      });
    } catch (error) {
      // The same request published twice under one id is answered once.
      if (!(error instanceof ConcurrencyError)) throw error;
    }
  };
}
