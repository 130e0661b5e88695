import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import type { BatchHandler, IncomingMessage, OutgoingMessage } from './types.js';

/** The W3C trace context header every message carries when tracing runs. */
export const TRACEPARENT_HEADER = 'traceparent';

const tracer = () => trace.getTracer('@vop/messaging');

function attributes(topic: string, operation: 'publish' | 'process') {
  return {
    'messaging.system': 'kafka',
    'messaging.destination.name': topic,
    'messaging.operation.type': operation,
  };
}

/** Whether each message gets a span of its own; see spanEachMessage. */
let spanPerMessage = true;

/**
 * Whether every message published or delivered gets a PRODUCER or CONSUMER span of its own (the
 * default). A process whose spans are never recorded (no exporter: `startServiceTracing`,
 * packages/lifecycle) turns it off: each message's `traceparent` then passes unchanged, so the trace
 * and the log lines' trace ids still follow it, without a span's ids, attributes and a copy of the
 * headers for every message of an import's thousands (`bench/RESULTS.md` §5).
 */
export function spanEachMessage(on: boolean): void {
  spanPerMessage = on;
}

function endAll(spans: Span[], error: unknown): void {
  for (const span of spans) {
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}

/**
 * One PRODUCER span per message, a child of the trace its traceparent header names (the request or
 * event that caused it); the header is replaced by the span's own, so the consumer is its child.
 * Without tracing started, the API is a no-op and the headers pass unchanged.
 */
export async function publishTraced(
  topic: string,
  messages: OutgoingMessage[],
  publish: (messages: OutgoingMessage[]) => Promise<void>,
): Promise<void> {
  if (!spanPerMessage) return publish(messages);
  const spans: Span[] = [];
  const traced = messages.map((message) => {
    const parent = propagation.extract(ROOT_CONTEXT, message.headers ?? {});
    const span = tracer().startSpan(
      `publish ${topic}`,
      { kind: SpanKind.PRODUCER, attributes: attributes(topic, 'publish') },
      parent,
    );
    spans.push(span);
    const headers = { ...message.headers };
    propagation.inject(trace.setSpan(parent, span), headers);
    return { ...message, headers };
  });
  let failure: unknown;
  try {
    await publish(traced);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    endAll(spans, failure);
  }
}

/**
 * One CONSUMER span per delivered message, a child of its producer's span. The handler sees each
 * message with the traceparent of its own CONSUMER span (so events it causes continue the trace) and
 * runs in the context of the first message's span (a batch of one: its message's).
 */
export async function deliverTraced(
  deliver: BatchHandler,
  batch: IncomingMessage[],
): Promise<void> {
  if (!spanPerMessage) {
    // In the first message's trace, as with spans (log lines carry its ids).
    const first = batch[0];
    return first === undefined
      ? deliver(batch)
      : context.with(propagation.extract(ROOT_CONTEXT, first.headers), () => deliver(batch));
  }
  const spans: Span[] = [];
  const traced = batch.map((message) => {
    const parent = propagation.extract(ROOT_CONTEXT, message.headers);
    const span = tracer().startSpan(
      `process ${message.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          ...attributes(message.topic, 'process'),
          'messaging.destination.partition.id': String(message.partition),
          'messaging.kafka.offset': Number(message.offset),
        },
      },
      parent,
    );
    spans.push(span);
    const headers = { ...message.headers };
    propagation.inject(trace.setSpan(parent, span), headers);
    return { ...message, headers };
  });
  let failure: unknown;
  try {
    const first = spans[0];
    await (first === undefined
      ? deliver(traced)
      : context.with(trace.setSpan(context.active(), first), () => deliver(traced)));
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    endAll(spans, failure);
  }
}
