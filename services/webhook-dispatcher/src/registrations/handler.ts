import type { EventStore } from '@vop/event-store';
import {
  decideRegistration,
  evolveRegistration,
  initialRegistration,
  type RegistrationCommand,
  type RegistrationEvent,
} from './decider.js';
import { projectRegistrationEvents } from './read-model.js';

export const registrationStream = (webhookId: string): string => `webhook-${webhookId}`;

/**
 * Loads a registration's stream, decides, and appends with the read model updated in the same
 * transaction (inline projection): a registration is readable the moment it is answered.
 */
export async function handleRegistration(
  store: EventStore,
  webhookId: string,
  command: RegistrationCommand,
): Promise<RegistrationEvent[]> {
  const streamId = registrationStream(webhookId);
  return store.sql.transaction(async (tx) => {
    const past = await store.readStream(streamId, { tx });
    const state = past
      .map((event) => ({ type: event.type, data: event.data }) as RegistrationEvent)
      .reduce(evolveRegistration, initialRegistration());
    const events = decideRegistration(command, state);
    if (events.length === 0) return events;
    const { events: recorded } = await store.append(streamId, events, {
      expectedVersion: past.length,
      tx,
    });
    await projectRegistrationEvents(tx, store.schema, recorded);
    return events;
  });
}
