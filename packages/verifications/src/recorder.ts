import { randomUUID } from 'node:crypto';
import {
  VERIFICATION_EVENT_VERSION,
  type VerificationRequestedData,
  type VerificationTerminal,
} from '@vop/contracts';
import type { EventStore, SqlExecutor } from '@vop/event-store';
import { type FieldCipher, protectTypedName } from '@vop/personal-data';
import { GroupCommit } from './group-commit.js';
import { type LocalDecider, type RecordedRequest, requestEnvelope } from './local-decider.js';
import { verificationStreamId } from './stream-id.js';

export interface VerificationRequest {
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

export interface VerificationRecorderOptions {
  store: EventStore;
  cipher: FieldCipher;
  /**
   * Inline read-model work in the appending transaction (the requester's rows), with the ends a
   * local decider gave (none without one).
   */
  inline?: (
    tx: SqlExecutor,
    requests: VerificationRequestedData[],
    ends: VerificationTerminal[],
  ) => Promise<void>;
  /**
   * Decides the requests in this process, in the transaction that records them (embedded). Their
   * ends go to `inline` in that transaction and to `onEnds` once it committed.
   */
  decider?: LocalDecider;
  onEnds?: (ends: VerificationTerminal[]) => void;
  clock?: () => Date;
}

export type RecordVerification = (request: VerificationRequest) => Promise<void>;

/**
 * Records verification requests as events (an outbox relay publishes them; see
 * packages/contracts/src/events/topics.ts for the topic and key); concurrent requests share one
 * transaction through the group commit. With a local decider, the same transaction also holds their
 * ends, so a round costs one transaction and its callers are answered at commit.
 */
export function verificationRecorder(options: VerificationRecorderOptions): RecordVerification {
  const { store, cipher, inline, decider, onEnds } = options;
  const clock = options.clock ?? (() => new Date());
  const commit = new GroupCommit<VerificationRequest>(async (plainRequests) => {
    // Outside the transaction, so the day's key is served from the key cache.
    const requests: RecordedRequest[] = await Promise.all(
      plainRequests.map(async ({ data, metadata }) => ({
        eventId: randomUUID(),
        data: await protectTypedName(cipher, data),
        metadata: { ...metadata, schemaVersion: String(VERIFICATION_EVENT_VERSION) },
      })),
    );
    const now = clock();
    const decided = await decider?.prepare(
      requests.map((request) => requestEnvelope(request, now)),
    );
    await store.sql.transaction(async (tx) => {
      // Issued together, not one after the other: embedded, PGlite's thread runs them back to back
      // instead of waiting a round trip to this thread for each (packages/event-store/src/pglite-thread-client.ts).
      const written = await Promise.allSettled([
        store.startStreamsCounted(
          requests.map(({ eventId, data, metadata }) => ({
            streamId: verificationStreamId(data.verificationId),
            events: [{ eventId, type: 'VerificationRequested', data, metadata }],
          })),
          { tx },
        ),
        decided?.record(tx),
        inline?.(
          tx,
          requests.map(({ data }) => data),
          decided?.ends ?? [],
        ),
      ]);
      const failed = written.find((outcome) => outcome.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    });
    if (decided) {
      decided.committed();
      onEnds?.(decided.ends);
    }
  });
  return (request) => commit.submit(request);
}
