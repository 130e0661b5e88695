import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { NestedError } from './http/errors.js';
import {
  WebhookDeliveryRecord,
  WebhookDeadLetters,
  WebhookDeadLettersQuery,
  WebhookDeliveriesQuery,
  WebhookRecord,
  WebhookRegistrationRequest,
} from './http/webhooks.js';
import { json } from './openapi-content.js';
import { z } from './zod.js';

/** The webhooks family (services/webhook-dispatcher), in the OpenAPI document. */
export function registerWebhookPaths(registry: OpenAPIRegistry): void {
  const webhookId = z.object({ id: z.uuid() });
  const deliveries = z.object({ deliveries: z.array(WebhookDeliveryRecord), total: z.number() });
  registry.registerPath({
    method: 'post',
    path: '/webhooks',
    summary: 'Register a webhook receiver for the caller’s verifications and batches',
    request: { body: json(WebhookRegistrationRequest, 'Receiver, events and shared secret') },
    responses: {
      201: json(WebhookRecord, 'Registered (the secret is never returned)'),
      400: json(NestedError, 'INVALID_REQUEST naming the field'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks',
    responses: {
      200: json(
        z.object({ webhooks: z.array(WebhookRecord), total: z.number() }),
        'The caller’s registrations',
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/{id}',
    request: { params: webhookId },
    responses: {
      200: json(WebhookRecord, 'Registration'),
      404: json(NestedError, 'WEBHOOK_NOT_FOUND'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/webhooks/{id}',
    request: { params: webhookId },
    responses: { 204: { description: 'Removed' }, 404: json(NestedError, 'WEBHOOK_NOT_FOUND') },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    request: {
      params: webhookId,
      query: WebhookDeliveriesQuery,
    },
    responses: {
      200: json(deliveries, 'Deliveries, each with every attempt'),
      404: json(NestedError, 'WEBHOOK_NOT_FOUND'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/dead-letters',
    request: { query: WebhookDeadLettersQuery },
    responses: {
      200: json(
        WebhookDeadLetters,
        'The caller’s dead-lettered deliveries, a page; total counts all',
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    request: { params: z.object({ id: z.uuid(), deliveryId: z.uuid() }) },
    responses: {
      202: json(WebhookDeliveryRecord, 'A new round of attempts, same webhook-id'),
      404: json(NestedError, 'WEBHOOK_NOT_FOUND or DELIVERY_NOT_FOUND'),
      409: json(NestedError, 'WEBHOOK_DISABLED'),
    },
  });
}
