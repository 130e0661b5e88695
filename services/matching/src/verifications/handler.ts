import { VERIFICATION_EVENT_VERSION, VerificationRequested, type IntegrationEnvelope } from '@vop/contracts';
import type { EventStore, NewEvent, SqlExecutor } from '@vop/event-store';
import { findAccountsByIbans } from '../accounts/projection.js';
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
 * Decides a batch of verifications and records their VerificationCompleted events in this service's
 * store (the outbox relay publishes them), inside the transaction that marks the requests processed.
 * A request already answered (the same verification id) is not answered again.
 */
export function createVerificationBatchHandler(options: { store: EventStore; matcher: NameMatcher; onDecided?: (decision: Decision) => void }) {
  const { store, matcher, onDecided } = options;
  return async (envelopes: IntegrationEnvelope[], tx: SqlExecutor): Promise<void> => {
    const requests = envelopes.map((envelope) => ({ envelope, request: VerificationRequested.parse({ type: envelope.type, data: envelope.data }).data }));
    const accounts = await findAccountsByIbans(tx, store.schema, requests.map(({ request }) => request.iban));
    const streams = requests.map(({ envelope, request }) => {
      const started = process.hrtime.bigint();
      const completed = decideVerification(request, accounts.get(request.iban), matcher, new Date());
      onDecided?.({ family: completed.family, outcome: completed.outcome, reasons: completed.reasons, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      const metadata: Record<string, string> = {
        correlationId: envelope.correlationId,
        causationId: envelope.eventId,
        schemaVersion: String(VERIFICATION_EVENT_VERSION),
      };
      if (envelope.traceparent) metadata.traceparent = envelope.traceparent;
      const event: NewEvent = { type: 'VerificationCompleted', data: completed, metadata };
      return { streamId: completionStreamId(request.verificationId), events: [event] };
    });
    await store.startStreams(streams, { tx, ifExists: 'skip' });
  };
}
