import { WebhookDeadLettersQuery, WebhookDeliveriesQuery, z } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { ApiError, errors, parseParam, createRouter } from '@vop/http';
import { type Router } from 'express';
import { listRegistrations, findRegistration } from '../registrations/read-model.js';
import { participantOf, webhookIdParam, webhookNotFound } from '../registrations/routes.js';
import { countDeliveries, listDeliveries, redeliver } from './queue.js';

const Query = WebhookDeliveriesQuery;

const deliveryNotFound = () =>
  errors.notFound('DELIVERY_NOT_FOUND', 'No finished delivery with this id for this webhook');

function parseQuery(query: unknown): z.infer<typeof Query> {
  return parsed(Query, query);
}

function parseDeadLettersQuery(query: unknown): z.infer<typeof WebhookDeadLettersQuery> {
  return parsed(WebhookDeadLettersQuery, query);
}

function parsed<T extends z.ZodType>(schema: T, query: unknown): z.infer<T> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const field = String(parsed.error.issues[0]?.path[0] ?? 'query');
  throw new ApiError(400, 'INVALID_REQUEST', `Invalid value for field: ${field}`, {
    field,
    reason: 'INVALID_VALUE',
  });
}

/**
 * The delivery log of a registration (every attempt: time, status code, latency, outcome, next
 * retry), its dead letters across registrations, and a manual redelivery (same webhook-id).
 */
export function deliveryRoutes(options: {
  store: EventStore;
  clock: () => Date;
  onRedelivery: () => void;
}): Router {
  const { store, clock } = options;
  const { sql, schema } = store;
  const router = createRouter();

  // Paged newest first: `total` counts every dead letter, `nextCursor` fetches the page after this one.
  router.get('/webhooks/dead-letters', async (req, res) => {
    const { limit, cursor } = parseDeadLettersQuery(req.query);
    const own = await listRegistrations(sql, schema, participantOf(res));
    const webhookIds = own.map((webhook) => webhook.id);
    const [page, total] = await Promise.all([
      listDeliveries(sql, schema, {
        webhookIds,
        status: 'dead_lettered',
        limit: limit + 1,
        ...(cursor !== undefined && { after: cursor }),
      }),
      countDeliveries(sql, schema, { webhookIds, status: 'dead_lettered' }),
    ]);
    const deliveries = page.slice(0, limit);
    res.json({
      deliveries,
      total,
      nextCursor: page.length > limit ? (deliveries.at(-1)?.id ?? null) : null,
    });
  });

  router.get('/webhooks/:webhookId/deliveries', async (req, res) => {
    const webhookId = webhookIdParam(req.params.webhookId);
    if (!(await findRegistration(sql, schema, participantOf(res), webhookId)))
      throw webhookNotFound();
    const { status, limit } = parseQuery(req.query);
    const deliveries = await listDeliveries(sql, schema, {
      webhookIds: [webhookId],
      ...(status && { status }),
      limit,
    });
    res.json({ deliveries, total: deliveries.length });
  });

  router.post('/webhooks/:webhookId/deliveries/:deliveryId/redeliver', async (req, res) => {
    const webhookId = webhookIdParam(req.params.webhookId);
    const record = await findRegistration(sql, schema, participantOf(res), webhookId);
    if (!record) throw webhookNotFound();
    if (!record.enabled)
      throw errors.conflict('WEBHOOK_DISABLED', 'This webhook is disabled; register it again');
    const deliveryId = parseParam(z.uuid(), req.params.deliveryId, deliveryNotFound);
    if (!(await redeliver(sql, schema, webhookId, deliveryId, clock()))) throw deliveryNotFound();
    options.onRedelivery();
    const [delivery] = await listDeliveries(sql, schema, {
      webhookIds: [webhookId],
      deliveryId,
      limit: 1,
    });
    res.status(202).json(delivery);
  });

  return router;
}
