import type {
  IntegrationEnvelope,
  VerificationRequestedData,
  VerificationTerminal,
} from '@vop/contracts';
import type { WriteStatement } from '@vop/event-store';

/** A request as the recorder is about to append it (typed name already encrypted). */
export interface RecordedRequest {
  eventId: string;
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

/**
 * Decisions taken for a round of requests, ready to be stored with them: `writes` append their ends
 * (written in the recorder's one statement with the requests).
 */
export interface PreparedDecisions {
  readonly ends: VerificationTerminal[];
  readonly writes: WriteStatement[];
  /** After the recording statement committed: the decider's own consumer skips these requests. */
  committed(): void;
}

/**
 * The port through which the recording process decides requests itself (the embedded composition
 * supplies matching's decider; the gateway never imports matching). Without it the requests travel
 * to the decider over the bus.
 */
export interface LocalDecider {
  /** Outside any transaction: keys and accounts are read here, as matching does for a delivery. */
  prepare(requests: IntegrationEnvelope[]): Promise<PreparedDecisions>;
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
