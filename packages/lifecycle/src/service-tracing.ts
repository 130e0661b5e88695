import { spanEachMessage } from '@vop/messaging';
import { startTracing, type Tracing } from '@vop/observability';

/**
 * OpenTelemetry for a service process (`startTracing`), and a span for each message only when spans
 * are exported: unexported, they are never recorded, and the message's own `traceparent` carries the
 * trace on (`spanEachMessage`, packages/messaging/src/message-tracing.ts).
 */
export function startServiceTracing(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
): Tracing {
  const tracing = startTracing({ service, env });
  spanEachMessage(tracing.exporting);
  return tracing;
}
