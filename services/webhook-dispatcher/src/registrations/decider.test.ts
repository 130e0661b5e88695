import { describe, it } from 'node:test';
import { deciderSpec } from '@vop/testing';
import {
  decideRegistration,
  evolveRegistration,
  initialRegistration,
  RegistrationError,
  type RegistrationCommand,
  type RegistrationEvent,
  type RegistrationState,
} from './decider.js';

const spec = deciderSpec<RegistrationCommand, RegistrationEvent, RegistrationState>({
  decide: decideRegistration,
  evolve: evolveRegistration,
  initialState: initialRegistration(),
});
const webhookId = '0b7c2f0e-5d7e-4a8e-9a43-3d3c1f1e2a10';
const now = new Date('2026-01-02T03:04:05.000Z');
const registered: RegistrationEvent = {
  type: 'WebhookRegistered',
  data: {
    webhookId,
    participant: 'PSDDE-BAFIN-123456',
    url: 'https://receiver.example/hooks',
    events: ['verification.success'],
    secret: 'a-secret-of-sixteen+',
    registeredAt: now.toISOString(),
  },
};
const { registeredAt: _at, ...registerData } = registered.data;

describe('webhook registration decider', () => {
  it('registers a new webhook with the time it was given', () => {
    spec
      .given([])
      .when({ type: 'RegisterWebhook', data: { ...registerData, now } })
      .then([registered]);
  });

  it('refuses to register the same id twice', () => {
    spec
      .given([registered])
      .when({ type: 'RegisterWebhook', data: { ...registerData, now } })
      .thenThrows(RegistrationError);
  });

  it('disables an enabled webhook once (410 Gone), and a second 410 changes nothing', () => {
    const disable: RegistrationCommand = {
      type: 'DisableWebhook',
      data: { webhookId, reason: 'HTTP 410 Gone', now },
    };
    const disabled: RegistrationEvent = {
      type: 'WebhookDisabled',
      data: { webhookId, reason: 'HTTP 410 Gone', disabledAt: now.toISOString() },
    };
    spec.given([registered]).when(disable).then([disabled]);
    spec.given([registered, disabled]).when(disable).then([]);
  });

  it('deletes a webhook, and a deleted or unknown one is not found', () => {
    const remove: RegistrationCommand = { type: 'DeleteWebhook', data: { webhookId, now } };
    const deleted: RegistrationEvent = {
      type: 'WebhookDeleted',
      data: { webhookId, deletedAt: now.toISOString() },
    };
    spec.given([registered]).when(remove).then([deleted]);
    spec.given([registered, deleted]).when(remove).thenThrows(RegistrationError);
    spec.given([]).when(remove).thenThrows(RegistrationError);
  });
});
