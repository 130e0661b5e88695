import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '@vop/event-store';

/**
 * An account's first event as the gateway's store records it (the relay publishes it with
 * `toOutgoingMessage`), for the specs of whatever reads the account events.
 */
export function recordedAccountOpened(
  iban: string,
  accountId: string = randomUUID(),
): RecordedEvent {
  return {
    eventId: randomUUID(),
    streamId: `account-${accountId}`,
    streamPosition: 1,
    globalPosition: 1n,
    transactionId: '1',
    type: 'AccountOpened',
    data: {
      accountId,
      iban,
      name: 'Erika Mustermann',
      holderType: 'person',
      alternateNames: [],
      status: 'active',
      createdAt: '2026-03-01T00:00:00.000Z',
    },
    metadata: {},
    occurredAt: new Date('2026-03-01T00:00:00.000Z'),
  };
}
