import { VERIFICATION_EVENT_VERSION, type VerificationRequestedData } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { type FieldCipher, typedNameSubject } from '@vop/personal-data';
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
export function verificationRecorder(store: EventStore, cipher: FieldCipher): (request: VerificationRequest) => Promise<void> {
  const commit = new GroupCommit<VerificationRequest>(async (plainRequests) => {
    // Outside the transaction, so the day's key is served from the key cache.
    const requests = await Promise.all(plainRequests.map((request) => protectTypedName(cipher, request)));
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

/** The typed payee name is kept under the day's key, destroyed when the day leaves the retention window. */
async function protectTypedName(cipher: FieldCipher, request: VerificationRequest): Promise<VerificationRequest> {
  if (request.data.name === undefined) return request;
  const name = await cipher.encrypt(typedNameSubject(new Date(request.data.requestedAt)), request.data.name);
  return { ...request, data: { ...request.data, name } };
}
