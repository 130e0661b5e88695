import { randomUUID } from 'node:crypto';
import {
  VERIFICATION_EVENT_VERSION,
  type VerificationRequestedData,
  type VerificationEnd,
} from '@vop/contracts';
import { type EventStore, writeTogether, type WriteStatement } from '@vop/event-store';
import { type FieldCipher, protectTypedName } from '@vop/personal-data';
import type { DecideRound } from './deciding/round-decisions.js';
import { GroupCommit } from './group-commit.js';
import { type RecordedRequest, requestEnvelope, requestStream } from './request-stream.js';

export interface VerificationRequest {
  data: VerificationRequestedData;
  metadata: Record<string, string>;
}

export interface VerificationRecorderOptions {
  store: EventStore;
  cipher: FieldCipher;
  /**
   * Inline read-model rows (the requester's), written in the statement that appends the requests, with
   * the ends decided at recording (none without `decide`).
   */
  inline?: (requests: VerificationRequestedData[], ends: VerificationEnd[]) => WriteStatement;
  /**
   * Decides the requests in this process (`roundDecisions(…).decide`), outside the statement that
   * records them: each request is appended with its end in one stream, marked `decidedAtRecording` so
   * matching leaves it alone, and its caller's `record()` resolves with that end. Without it, or for a
   * request it leaves out, the request travels to matching over the bus. The ends also go to `inline`
   * in that statement.
   */
  decide?: DecideRound;
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

/** Resolves at commit with the request's end when it was decided at recording, else with undefined. */
export type RecordVerification = (
  request: VerificationRequest,
) => Promise<VerificationEnd | undefined>;

/**
 * Records verification requests as events (an outbox relay publishes them; see
 * packages/contracts/src/events/topics.ts for the topic and key); concurrent requests share one
 * statement through the group commit. With `decide`, the same statement also writes their ends (each
 * after its request, in the request's stream), so a round costs one statement and its callers are
 * answered at commit; the relay publishes both.
 */
export function verificationRecorder(options: VerificationRecorderOptions): RecordVerification {
  const { store, cipher, inline, decide } = options;
  const clock = options.clock ?? (() => new Date());
  const recordRound = async (
    plainRequests: VerificationRequest[],
  ): Promise<(VerificationEnd | undefined)[]> => {
    // Outside the transaction, so the day's key is served from the key cache.
    const requests: RecordedRequest[] = await Promise.all(
      plainRequests.map(async ({ data, metadata }) => ({
        eventId: randomUUID(),
        data: await protectTypedName(cipher, data),
        metadata: { ...metadata, schemaVersion: String(VERIFICATION_EVENT_VERSION) },
      })),
    );
    const now = clock();
    const decided = await decide?.(
      requests.map((request) => requestEnvelope(request, now)),
      plainRequests.map(({ data }) => data.name),
    );
    const ends: VerificationEnd[] = [];
    // Each request's own end, in request order: what its caller's record() resolves with.
    const answers: (VerificationEnd | undefined)[] = [];
    // One statement for the round, no BEGIN and COMMIT: on PostgreSQL one round trip instead of five,
    // and on PGlite's thread nothing waits for this one between the writes (write-together.ts). A
    // request decided here is one stream with its end: both are recorded, or neither.
    const writes: WriteStatement[] = [
      store.startStreamsWrite(
        requests.map((request) => {
          const end = decided?.get(request.eventId);
          if (end !== undefined) ends.push(...end.ends);
          answers.push(end?.ends.at(-1));
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
    return answers;
  };
  const commit = new GroupCommit<VerificationRequest, VerificationEnd | undefined>(recordRound, {
    maxInFlight: options.roundsInFlight,
    gatherMs: options.roundGatherMs,
  });
  return (request) => commit.submit(request);
}
