import { IntegrationEnvelope } from '@vop/contracts';
import type { RecordedEvent } from '@vop/event-store';
import type { IncomingMessage, OutgoingMessage } from '@vop/messaging';

export const EVENT_ID_HEADER = 'event-id';
export const EVENT_TYPE_HEADER = 'event-type';
export const TRACEPARENT_HEADER = 'traceparent';
export const CORRELATION_ID_HEADER = 'correlation-id';
/**
 * The event's stream and position in it, also in the envelope: a consumer that keeps a row per stream
 * can pass over what it has without parsing the message (the copies written at commit: `notYetCopied`
 * in packages/verifications/src/deciding/account-projection-consumer.ts).
 */
export const STREAM_ID_HEADER = 'stream-id';
export const STREAM_POSITION_HEADER = 'stream-position';

/** The wire form of a stored event: the integration envelope as JSON; its id, stream and trace context as headers. */
export function toOutgoingMessage(event: RecordedEvent, key: string): OutgoingMessage {
  const correlationId = event.metadata.correlationId ?? event.eventId;
  const envelope: IntegrationEnvelope = {
    eventId: event.eventId,
    type: event.type,
    version: Number(event.metadata.schemaVersion ?? 1),
    occurredAt: event.occurredAt.toISOString(),
    correlationId,
    traceparent: event.metadata.traceparent,
    streamId: event.streamId,
    streamPosition: event.streamPosition,
    data: event.data,
  };
  const headers: Record<string, string> = {
    [EVENT_ID_HEADER]: event.eventId,
    [EVENT_TYPE_HEADER]: event.type,
    [CORRELATION_ID_HEADER]: correlationId,
    [STREAM_ID_HEADER]: event.streamId,
    [STREAM_POSITION_HEADER]: String(event.streamPosition),
  };
  if (event.metadata.traceparent) headers[TRACEPARENT_HEADER] = event.metadata.traceparent;
  return { key, value: JSON.stringify(envelope), headers };
}

export class InvalidEnvelopeError extends Error {
  constructor(message: IncomingMessage, reason: string) {
    super(
      `Invalid integration event on ${message.topic}[${message.partition}]@${message.offset}: ${reason}`,
    );
    this.name = 'InvalidEnvelopeError';
  }
}

export function parseEnvelope(message: IncomingMessage): IntegrationEnvelope {
  let raw: unknown;
  try {
    raw = JSON.parse(message.value);
  } catch {
    throw new InvalidEnvelopeError(message, 'not JSON');
  }
  const parsed = IntegrationEnvelope.safeParse(raw);
  if (!parsed.success)
    throw new InvalidEnvelopeError(
      message,
      parsed.error.issues.map((issue) => issue.path.join('.')).join(', '),
    );
  // The header holds the consumer's own span (see @vop/messaging message-tracing); the envelope's
  // copy is the producer's cause, one hop earlier.
  const traceparent = message.headers[TRACEPARENT_HEADER];
  return traceparent === undefined ? parsed.data : { ...parsed.data, traceparent };
}
