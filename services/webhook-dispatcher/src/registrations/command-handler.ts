import { handleCommand, type EventStore } from '@vop/event-store';
import {
  decideRegistration,
  evolveRegistration,
  initialRegistration,
  type RegistrationCommand,
  type RegistrationEvent,
} from './decider.js';
import { projectRegistrationEvents } from './read-model.js';

export const registrationStream = (webhookId: string): string => `webhook-${webhookId}`;

const registrationDecider = {
  decide: decideRegistration,
  evolve: evolveRegistration,
  initialState: initialRegistration,
};

/**
 * Loads a registration's stream, decides, and appends with the read model updated in the same
 * transaction (inline projection): a registration is readable the moment it is answered.
 */
export async function handleRegistration(
  store: EventStore,
  webhookId: string,
  command: RegistrationCommand,
): Promise<RegistrationEvent[]> {
  const { newEvents } = await handleCommand(
    store,
    registrationStream(webhookId),
    registrationDecider,
    command,
    { afterAppend: ({ recorded }, tx) => projectRegistrationEvents(tx, store.schema, recorded) },
  );
  return newEvents;
}
