import { z } from '../zod.js';

/**
 * A webhook delivery that used its last attempt (services/webhook-dispatcher), on
 * `Topics.webhookDeadLetters` keyed by registration id, for operators' alerting. The owner reads
 * and redelivers it through GET /webhooks/{id}/deliveries; no payload content here.
 */
export const WebhookDeliveryDeadLettered = z.object({
  type: z.literal('WebhookDeliveryDeadLettered'),
  data: z.object({
    deliveryId: z.uuid(),
    webhookId: z.uuid(),
    participant: z.string(),
    eventType: z.string(),
    sourceEventId: z.uuid(),
    attempts: z.number().int().positive(),
    lastStatusCode: z.number().int().nullable(),
    lastOutcome: z.string(),
    deadLetteredAt: z.iso.datetime(),
  }),
});
export type WebhookDeliveryDeadLetteredData = z.infer<typeof WebhookDeliveryDeadLettered>['data'];
