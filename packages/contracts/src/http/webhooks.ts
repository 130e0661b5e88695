import { BatchCompleted } from '../events/batches.js';
import { NameMatchOutcome, VerificationFamily } from '../events/verifications.js';
import { z } from '../zod.js';

/** The event names a registration may subscribe to (design §4 "Webhooks"). */
export const WebhookEventName = z.enum([
  'verification.success',
  'verification.failure',
  'batch.completed',
]);
export type WebhookEventName = z.infer<typeof WebhookEventName>;

/** POST /webhooks. A secret starting with `whsec_` is a base64 key (Standard Webhooks); else raw bytes. */
export const WebhookRegistrationRequest = z
  .strictObject({
    url: z.url({ protocol: /^https?$/ }).max(2048),
    events: z.array(WebhookEventName).min(1).max(3),
    secret: z
      .string()
      .min(16)
      .max(256)
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
  })
  .openapi('WebhookRegistrationRequest');
export type WebhookRegistrationRequest = z.infer<typeof WebhookRegistrationRequest>;

/** A stored registration as its owner reads it: never the secret. */
export const WebhookRecord = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(WebhookEventName),
    enabled: z.boolean(),
    disabled_reason: z.string().optional(),
    created_at: z.iso.datetime(),
  })
  .openapi('WebhookRecord');
export type WebhookRecord = z.infer<typeof WebhookRecord>;

export const WebhookDeliveryStatus = z.enum([
  'pending',
  'delivered',
  'dead_lettered',
  'endpoint_gone',
  'cancelled',
]);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

export const WebhookAttemptOutcome = z.enum([
  'delivered',
  'http_error',
  'timeout',
  'network_error',
  'address_refused',
  'gone',
]);
export type WebhookAttemptOutcome = z.infer<typeof WebhookAttemptOutcome>;

/** One delivery (one event to one registration) with every attempt made for it. */
export const WebhookDeliveryRecord = z
  .object({
    id: z.uuid(),
    webhook_id: z.uuid(),
    event_type: WebhookEventName,
    status: WebhookDeliveryStatus,
    created_at: z.iso.datetime(),
    delivered_at: z.iso.datetime().nullable(),
    next_attempt_at: z.iso.datetime().nullable(),
    attempts: z.array(
      z.object({
        attempted_at: z.iso.datetime(),
        status_code: z.number().int().nullable(),
        latency_ms: z.number().int(),
        outcome: WebhookAttemptOutcome,
        error: z.string().optional(),
        next_retry_at: z.iso.datetime().nullable(),
      }),
    ),
  })
  .openapi('WebhookDeliveryRecord');
export type WebhookDeliveryRecord = z.infer<typeof WebhookDeliveryRecord>;

/**
 * What a receiver gets (Standard Webhooks: {type, timestamp, data}). Identifiers and outcomes
 * only: no names, no IBANs (data minimisation).
 */
export const VerificationWebhookData = z.object({
  request_id: z.uuid(),
  family: VerificationFamily,
  outcome: NameMatchOutcome,
  batch_id: z.string().optional(),
  entry_id: z.string().optional(),
  completed_at: z.iso.datetime(),
});
export const BatchWebhookData = z.object({
  batch_id: z.string(),
  status: BatchCompleted.shape.data.shape.status,
  total: z.number().int(),
  successful: z.number().int(),
  failed: z.number().int(),
  submitted_at: z.iso.datetime(),
  completed_at: z.iso.datetime(),
});
export const WebhookPayload = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('verification.success'),
      timestamp: z.iso.datetime(),
      data: VerificationWebhookData,
    }),
    z.object({
      type: z.literal('verification.failure'),
      timestamp: z.iso.datetime(),
      data: VerificationWebhookData.omit({ outcome: true }).extend({ reason: z.string() }),
    }),
    z.object({
      type: z.literal('batch.completed'),
      timestamp: z.iso.datetime(),
      data: BatchWebhookData,
    }),
  ])
  .openapi('WebhookPayload');
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** `GET /webhooks/{id}/deliveries`: which deliveries, how many. */
export const WebhookDeliveriesQuery = z.object({
  status: WebhookDeliveryStatus.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** `GET /webhooks/dead-letters`: a page size, and the `nextCursor` of the page before. */
export const WebhookDeadLettersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.uuid().optional(),
});

/** `GET /webhooks/dead-letters`: one page, newest first; `total` counts them all. */
export const WebhookDeadLetters = z.object({
  deliveries: z.array(WebhookDeliveryRecord),
  total: z.number().int(),
  nextCursor: z.uuid().nullable(),
});
