import { randomUUID } from 'node:crypto';
import type { SqlClient } from '@vop/event-store';
import type { OutgoingMessage } from '@vop/messaging';
import { toOutgoingMessage } from '@vop/outbox';
import { interceptTransactions } from '@vop/testing';

/** An AccountOpened as the gateway's relay publishes it, for the specs of the copies. */
export function accountOpened(iban: string, accountId: string = randomUUID()): OutgoingMessage {
  return toOutgoingMessage(
    {
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
    },
    iban,
  );
}

/** `sql` with its transactions counted: what a copy pays for each delivery. */
export function countingTransactions(sql: SqlClient): { sql: SqlClient; count(): number } {
  let transactions = 0;
  return { sql: interceptTransactions(sql, () => void transactions++), count: () => transactions };
}
