import { VERIFICATION_EVENT_VERSION, type VerificationRequestedData } from '@vop/contracts';
import type { EventStore, SqlExecutor } from '@vop/event-store';
import { type FieldCipher, protectTypedName } from '@vop/personal-data';
import { GroupCommit } from './group-commit.js';
import { verificationStreamId } from './stream-id.js';

export interface VerificationRequest {
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

export interface VerificationRecorderOptions {
  store: EventStore;
  cipher: FieldCipher;
  /** Inline read-model work in the appending transaction (the requester's pending rows). */
  inline?: (tx: SqlExecutor, requests: VerificationRequestedData[]) => Promise<void>;
}

export type RecordVerification = (request: VerificationRequest) => Promise<void>;

/**
 * Records verification requests as events (an outbox relay publishes them; see
 * packages/contracts/src/events/topics.ts for the topic and key); concurrent requests share one
 * transaction through the group commit.
 */
export function verificationRecorder({
  store,
  cipher,
  inline,
}: VerificationRecorderOptions): RecordVerification {
  const commit = new GroupCommit<VerificationRequest>(async (plainRequests) => {
    // Outside the transaction, so the day's key is served from the key cache.
    const requests = await Promise.all(
      plainRequests.map(async ({ data, metadata }) => ({
        data: await protectTypedName(cipher, data),
        metadata,
      })),
    );
    await store.sql.transaction(async (tx) => {
      await store.startStreamsCounted(
        requests.map(({ data, metadata }) => ({
          streamId: verificationStreamId(data.verificationId),
          events: [
            {
              type: 'VerificationRequested',
              data,
              metadata: { ...metadata, schemaVersion: String(VERIFICATION_EVENT_VERSION) },
            },
          ],
        })),
        { tx },
      );
      await inline?.(
        tx,
        requests.map(({ data }) => data),
      );
    });
  });
  return (request) => commit.submit(request);
}
