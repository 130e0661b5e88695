import type { IntegrationEnvelope, VerificationRequestedData } from '@vop/contracts';
import type { NewEvent } from '@vop/event-store';
import type { DecidedEnd } from './deciding/round-decisions.js';
import { verificationStreamId } from './stream-id.js';

/** A request as the recorder is about to append it (typed name already encrypted). */
export interface RecordedRequest {
  eventId: string;
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

/** The envelope a consumer of the published request would see (the relay publishes the same). */
export function requestEnvelope(request: RecordedRequest, occurredAt: Date): IntegrationEnvelope {
  const { eventId, data, metadata } = request;
  return {
    eventId,
    type: 'VerificationRequested',
    version: Number(metadata.schemaVersion ?? 1),
    occurredAt: occurredAt.toISOString(),
    correlationId: metadata.correlationId ?? eventId,
    ...(metadata.traceparent !== undefined && { traceparent: metadata.traceparent }),
    data,
  };
}

/**
 * A request's stream as recorded: the request, marked `decidedAtRecording` when an end was decided
 * for it, then that end, marked too. Both are written in one statement or neither; the mark sends both
 * to the `.decided` twins of their topics (packages/contracts/src/events/topics.ts).
 */
export function requestStream(
  request: { eventId?: string; data: VerificationRequestedData; metadata: Record<string, string> },
  end: DecidedEnd | undefined,
): { streamId: string; events: NewEvent[] } {
  const { eventId, data, metadata } = request;
  return {
    streamId: verificationStreamId(data.verificationId),
    events: [
      {
        ...(eventId !== undefined && { eventId }),
        type: 'VerificationRequested',
        data: end === undefined ? data : { ...data, decidedAtRecording: true as const },
        metadata,
      },
      ...(end?.events ?? []).map((event) => ({
        ...event,
        data: { ...event.data, decidedAtRecording: true as const },
      })),
    ],
  };
}
