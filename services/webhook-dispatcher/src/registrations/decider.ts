import type { WebhookEventName } from '@vop/contracts';

/** A registration's events (this service's own; they never leave it). */
export type RegistrationEvent =
  | {
      type: 'WebhookRegistered';
      data: {
        webhookId: string;
        participant: string;
        url: string;
        events: WebhookEventName[];
        secret: string;
        registeredAt: string;
      };
    }
  | { type: 'WebhookDisabled'; data: { webhookId: string; reason: string; disabledAt: string } }
  | { type: 'WebhookDeleted'; data: { webhookId: string; deletedAt: string } };

export type RegistrationCommand =
  | {
      type: 'RegisterWebhook';
      data: {
        webhookId: string;
        participant: string;
        url: string;
        events: WebhookEventName[];
        secret: string;
        now: Date;
      };
    }
  /** The receiver answered 410 Gone: nothing more is sent until the owner registers again. */
  | { type: 'DisableWebhook'; data: { webhookId: string; reason: string; now: Date } }
  | { type: 'DeleteWebhook'; data: { webhookId: string; now: Date } };

export type RegistrationState =
  | { status: 'none' }
  | { status: 'enabled' | 'disabled'; participant: string }
  | { status: 'deleted' };

export const initialRegistration = (): RegistrationState => ({ status: 'none' });

export class RegistrationError extends Error {
  constructor(readonly reason: 'ALREADY_EXISTS' | 'NOT_FOUND') {
    super(reason);
    this.name = 'RegistrationError';
  }
}

export function evolveRegistration(
  state: RegistrationState,
  event: RegistrationEvent,
): RegistrationState {
  switch (event.type) {
    case 'WebhookRegistered':
      return { status: 'enabled', participant: event.data.participant };
    case 'WebhookDisabled':
      return state.status === 'enabled' ? { ...state, status: 'disabled' } : state;
    case 'WebhookDeleted':
      return { status: 'deleted' };
  }
}

/** Pure: the events a command produces on a registration in `state`. */
export function decideRegistration(
  command: RegistrationCommand,
  state: RegistrationState,
): RegistrationEvent[] {
  switch (command.type) {
    case 'RegisterWebhook': {
      if (state.status !== 'none') throw new RegistrationError('ALREADY_EXISTS');
      const { now, ...data } = command.data;
      return [{ type: 'WebhookRegistered', data: { ...data, registeredAt: now.toISOString() } }];
    }
    case 'DisableWebhook':
      if (state.status === 'none' || state.status === 'deleted')
        throw new RegistrationError('NOT_FOUND');
      if (state.status === 'disabled') return [];
      return [
        {
          type: 'WebhookDisabled',
          data: {
            webhookId: command.data.webhookId,
            reason: command.data.reason,
            disabledAt: command.data.now.toISOString(),
          },
        },
      ];
    case 'DeleteWebhook':
      if (state.status === 'none' || state.status === 'deleted')
        throw new RegistrationError('NOT_FOUND');
      return [
        {
          type: 'WebhookDeleted',
          data: { webhookId: command.data.webhookId, deletedAt: command.data.now.toISOString() },
        },
      ];
  }
}
