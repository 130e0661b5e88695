import { randomUUID } from 'node:crypto';
import type { SqlClient } from '@vop/event-store';
import type { OutgoingMessage } from '@vop/messaging';
import { toOutgoingMessage } from '@vop/outbox';
import { interceptTransactions, recordedAccountOpened } from '@vop/testing';

/** An AccountOpened as the gateway's relay publishes it, for the specs of the copies. */
export function accountOpened(iban: string, accountId: string = randomUUID()): OutgoingMessage {
  return toOutgoingMessage(recordedAccountOpened(iban, accountId), iban);
}

/** `sql` with its transactions counted: what a copy pays for each delivery. */
export function countingTransactions(sql: SqlClient): { sql: SqlClient; count(): number } {
  let transactions = 0;
  return { sql: interceptTransactions(sql, () => void transactions++), count: () => transactions };
}
