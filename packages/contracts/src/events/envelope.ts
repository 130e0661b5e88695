import { z } from '../zod.js';

/**
 * What travels on the bus: the event store's event plus the integration metadata every consumer needs.
 * `version` is the schema version of `data` for that `type`.
 */
export const IntegrationEnvelope = z.object({
  eventId: z.uuid(),
  type: z.string().min(1),
  version: z.number().int().positive(),
  occurredAt: z.iso.datetime(),
  correlationId: z.string().min(1),
  traceparent: z.string().optional(),
  /** The source stream and the event's position in it, so consumers can ignore stale reorderings. */
  streamId: z.string().optional(),
  streamPosition: z.number().int().positive().optional(),
  data: z.unknown(),
});
export type IntegrationEnvelope = z.infer<typeof IntegrationEnvelope>;
