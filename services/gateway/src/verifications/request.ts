import { VERIFICATION_EVENT_VERSION, type VerificationRequestedData } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { GroupCommit } from './group-commit.js';
import { insertPendingVerifications } from './read-model.js';

export const verificationStreamId = (verificationId: string): string => `verification-${verificationId}`;

export interface VerificationRequest {
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

/**
 * Records verification requests as events (the outbox relay publishes them, keyed by IBAN) together with
 * their pending read-model rows; concurrent requests share one transaction.
 */
export function verificationRecorder(store: EventStore): (request: VerificationRequest) => Promise<void> {
  const commit = new GroupCommit<VerificationRequest>(async (requests) => {
    await store.sql.transaction(async (tx) => {
      await store.startStreams(
        requests.map(({ data, metadata }) => ({
          streamId: verificationStreamId(data.verificationId),
          events: [{ type: 'VerificationRequested', data, metadata: { ...metadata, schemaVersion: String(VERIFICATION_EVENT_VERSION) } }],
        })),
        { tx },
      );
      await insertPendingVerifications(
        tx,
        store.schema,
        requests.map(({ data }) => ({ id: data.verificationId, family: data.family, requestedAt: data.requestedAt })),
      );
    });
  });
  return (request) => commit.submit(request);
}
