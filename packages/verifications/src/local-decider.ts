import type {
  IntegrationEnvelope,
  VerificationRequestedData,
  VerificationTerminal,
} from '@vop/contracts';
import type { NewEvent } from '@vop/event-store';
import { verificationStreamId } from './stream-id.js';

/** A request as the recorder is about to append it (typed name already encrypted). */
export interface RecordedRequest {
  eventId: string;
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

/** A request's end as decided where it is recorded: the events that follow the request in its stream. */
export interface DecidedEnd {
  readonly events: NewEvent<VerificationTerminal['type'], VerificationTerminal['data']>[];
  readonly ends: VerificationTerminal[];
}

/**
 * The port through which the recording process decides requests itself (the gateway builds it from
 * @vop/decisions). The recorder appends each request with its end in one stream, in one statement,
 * and marks the request `decidedAtRecording`, so matching leaves it alone. Without a decider, or for a
 * request it leaves out, the request travels to matching over the bus.
 */
export interface LocalDecider {
  /**
   * Outside any transaction: keys and accounts are read here, as matching does for a delivery. Keyed
   * by the request's event id. `typedNames` are the requests' typed names in plain text, in order,
   * when the caller still has them (not decrypted again).
   */
  prepare(
    requests: IntegrationEnvelope[],
    typedNames?: readonly (string | undefined)[],
  ): Promise<ReadonlyMap<string, DecidedEnd>>;
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
