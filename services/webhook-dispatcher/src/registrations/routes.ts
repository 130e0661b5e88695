import { randomUUID } from 'node:crypto';
import type { AddressGuard } from '@vop/address-guard';
import { WebhookRegistrationRequest, z } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { ApiError, errors, parseBody, parseParam, principalOf, createRouter } from '@vop/http';
import { type Response, type Router } from 'express';
import { signerFor } from '../deliveries/sender.js';
import { RegistrationError } from './decider.js';
import { handleRegistration } from './command-handler.js';
import { findRegistration, listRegistrations } from './read-model.js';
import type { SecretProtection } from './secret-protection.js';

export const webhookNotFound = () =>
  errors.notFound('WEBHOOK_NOT_FOUND', 'No webhook with this id is registered by this caller');

/** The calling participant: registrations are scoped to it (the edge authenticated it). */
export function participantOf(res: Response): string {
  const principal = principalOf(res);
  if (principal === undefined) throw errors.unauthorized();
  return principal.participantId;
}

export const webhookIdParam = (value: unknown): string =>
  parseParam(z.uuid(), value, webhookNotFound);

const MESSAGES = {
  HTTPS_REQUIRED: 'This deployment delivers to https:// receivers only',
  ADDRESS_NOT_ALLOWED:
    'The receiver resolves to a loopback, private, link-local or otherwise non-public address',
  UNRESOLVABLE_HOST: 'The receiver host does not resolve',
} as const;

/** POST/GET /webhooks, GET/DELETE /webhooks/{id}: a participant's registrations. */
export function registrationRoutes(options: {
  store: EventStore;
  guard: AddressGuard;
  secrets: SecretProtection;
  clock: () => Date;
  /** A registration deleted here: what this instance holds for it is not sent. */
  onDeleted?: (webhookId: string) => void;
}): Router {
  const { store, guard, secrets, clock } = options;
  const { sql, schema } = store;
  const router = createRouter();

  router.post('/webhooks', async (req, res) => {
    const participant = participantOf(res);
    const body = parseBody(WebhookRegistrationRequest, req.body);
    const refusal = await guard.checkUrl(new URL(body.url));
    if (refusal)
      throw new ApiError(400, 'INVALID_REQUEST', MESSAGES[refusal], {
        field: 'url',
        reason: refusal,
      });
    try {
      signerFor(body.secret);
    } catch {
      throw new ApiError(
        400,
        'INVALID_REQUEST',
        'A whsec_ secret must be base64 after the prefix',
        {
          field: 'secret',
          reason: 'INVALID_VALUE',
        },
      );
    }
    const webhookId = randomUUID();
    await handleRegistration(store, webhookId, {
      type: 'RegisterWebhook',
      data: {
        webhookId,
        participant,
        url: body.url,
        events: [...new Set(body.events)],
        // Encrypted before it is stored anywhere: the event and the read model hold only this.
        secret: await secrets.seal(webhookId, body.secret),
        now: clock(),
      },
    });
    const record = await findRegistration(sql, schema, participant, webhookId);
    res.status(201).location(`/webhooks/${webhookId}`).json(record);
  });

  router.get('/webhooks', async (_req, res) => {
    const webhooks = await listRegistrations(sql, schema, participantOf(res));
    res.json({ webhooks, total: webhooks.length });
  });

  router.get('/webhooks/:webhookId', async (req, res) => {
    const record = await findRegistration(
      sql,
      schema,
      participantOf(res),
      webhookIdParam(req.params.webhookId),
    );
    if (!record) throw webhookNotFound();
    res.json(record);
  });

  router.delete('/webhooks/:webhookId', async (req, res) => {
    const webhookId = webhookIdParam(req.params.webhookId);
    if (!(await findRegistration(sql, schema, participantOf(res), webhookId)))
      throw webhookNotFound();
    try {
      await handleRegistration(store, webhookId, {
        type: 'DeleteWebhook',
        data: { webhookId, now: clock() },
      });
    } catch (error) {
      throw error instanceof RegistrationError ? webhookNotFound() : error;
    }
    options.onDeleted?.(webhookId);
    res.status(204).end();
  });

  return router;
}
