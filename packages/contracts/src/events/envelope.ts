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

export const Topics = {
  accountEvents: 'vop.account-events.v1',
  verificationRequested: 'vop.verification-requested.v1',
  verificationCompleted: 'vop.verification-completed.v1',
} as const;
export type TopicName = (typeof Topics)[keyof typeof Topics];
export type TopicNames = { [K in keyof typeof Topics]: string };

/**
 * Topic names under a deployment's namespace prefix, so several deployments (or test runs) can share one
 * Kafka cluster without reading each other's events.
 */
export function topicNames(namespace = ''): TopicNames {
  return {
    accountEvents: `${namespace}${Topics.accountEvents}`,
    verificationRequested: `${namespace}${Topics.verificationRequested}`,
    verificationCompleted: `${namespace}${Topics.verificationCompleted}`,
  };
}

/** Same partition count on the IBAN-keyed topics, so a key lands on the same partition index in both. */
export const TOPIC_PARTITIONS = 8;
