import { randomUUID } from 'node:crypto';
import {
  VERIFICATION_EVENT_VERSION,
  type VerificationRequestedData,
  type VerificationTerminal,
} from '@vop/contracts';
import { type EventStore, writeTogether, type WriteStatement } from '@vop/event-store';
import { type FieldCipher, protectTypedName } from '@vop/personal-data';
import { GroupCommit } from './group-commit.js';
import {
  type LocalDecider,
  type RecordedRequest,
  requestEnvelope,
  requestStream,
} from './local-decider.js';

export interface VerificationRequest {
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

export interface VerificationRecorderOptions {
  store: EventStore;
  cipher: FieldCipher;
  /**
   * Inline read-model rows (the requester's), written in the statement that appends the requests, with
   * the ends a local decider gave (none without one).
   */
  inline?: (requests: VerificationRequestedData[], ends: VerificationTerminal[]) => WriteStatement;
  /**
   * Decides the requests in this process, in the statement that records them. Their ends go to
   * `inline` in that statement and to `onEnds` once it committed.
   */
  decider?: LocalDecider;
  onEnds?: (ends: VerificationTerminal[]) => void;
  clock?: () => Date;
  /**
   * Rounds written at once (default 1). Embedded, 2: PGlite runs statements on a thread of its own, and
   * with one round the request thread waited on it; distributed the gateway's request thread is the
   * bound, and two smaller rounds cost it more per check (bench/RESULTS.md §1).
   */
  roundsInFlight?: number;
  /**
   * The least time between the starts of two rounds (default 0): under load the requests of several
   * turns of the event loop share one statement (group-commit.ts).
   */
  roundGatherMs?: number;
}

export type RecordVerification = (request: VerificationRequest) => Promise<void>;

/**
 * Records verification requests as events (an outbox relay publishes them; see
 * packages/contracts/src/events/topics.ts for the topic and key); concurrent requests share one
 * statement through the group commit. With a local decider, the same statement also writes their
 * ends (each after its request, in the request's stream), so a round costs one statement and its
 * callers are answered at commit; the relay publishes both.
 */
export function verificationRecorder(options: VerificationRecorderOptions): RecordVerification {
  const { store, cipher, inline, decider, onEnds } = options;
  const clock = options.clock ?? (() => new Date());
  const recordRound = async (plainRequests: VerificationRequest[]): Promise<void> => {
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
      plainRequests.map(({ data }) => data.name),
    );
    const ends: VerificationTerminal[] = [];
    // One statement for the round, no BEGIN and COMMIT: on PostgreSQL one round trip instead of five,
    // and on PGlite's thread nothing waits for this one between the writes (write-together.ts). A
    // request decided here is one stream with its end: both are recorded, or neither.
    const writes: WriteStatement[] = [
      store.startStreamsWrite(
        requests.map((request) => {
          const end = decided?.get(request.eventId);
          if (end !== undefined) ends.push(...end.ends);
          return requestStream(request, end);
        }),
      ),
    ];
    if (inline !== undefined)
      writes.push(
        inline(
          requests.map(({ data }) => data),
          ends,
        ),
      );
    await writeTogether(store.sql, writes);
    if (ends.length > 0) onEnds?.(ends);
  };
  const commit = new GroupCommit(recordRound, {
    maxInFlight: options.roundsInFlight,
    gatherMs: options.roundGatherMs,
  });
  return (request) => commit.submit(request);
}
