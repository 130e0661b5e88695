import { VERIFICATION_EVENT_VERSION, type VerificationRequestedData } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { insertPendingVerification } from './read-model.js';

export const verificationStreamId = (verificationId: string): string => `verification-${verificationId}`;

/**
 * Records the request as an event (the outbox relay publishes it, keyed by IBAN) and the pending row of
 * the read model in one transaction.
 */
export async function requestVerification(
  store: EventStore,
  data: VerificationRequestedData,
  metadata: Record<string, string>,
): Promise<void> {
  await store.sql.transaction(async (tx) => {
    await store.append(
      verificationStreamId(data.verificationId),
      [{ type: 'VerificationRequested', data, metadata: { ...metadata, schemaVersion: String(VERIFICATION_EVENT_VERSION) } }],
      { expectedVersion: 'no_stream', tx },
    );
    await insertPendingVerification(tx, store.schema, { id: data.verificationId, family: data.family, requestedAt: data.requestedAt });
  });
}
