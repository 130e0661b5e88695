import { randomUUID } from 'node:crypto';
import {
  VERIFICATION_EVENT_VERSION,
  type VerificationRequestedData,
  type VerificationEnd,
} from '@vop/contracts';
import type { NewEvent } from '@vop/event-store';
import {
  requestEnvelope,
  requestStream,
  type AccountProjection,
  type DecidedEnd,
  type DecideRound,
} from '@vop/verifications';

/** A chunk of a batch's requests with their event ids, and the ends decided for them (by event id). */
export interface DecidedEntries {
  eventIds: string[];
  ends: ReadonlyMap<string, DecidedEnd>;
  /**
   * The entries left without an end are for accounts this copy does not hold: they go to the
   * requesting side (marked `routing`), which asks the payee's bank or decides them as ours.
   */
  undecidedToPayeeBank?: true;
}

/**
 * Decides a chunk of a batch's entries before the transaction that records them (`decide` reads
 * keys and accounts outside it: on PGlite a read beside an open transaction waits behind it).
 */
export type DecideEntries = (
  batchId: string,
  requests: readonly VerificationRequestedData[],
) => Promise<DecidedEntries>;

/** The metadata of a batch entry's request: the batch is what the entries have in common. */
export function entryMetadata(batchId: string): Record<string, string> {
  return { correlationId: batchId, schemaVersion: String(VERIFICATION_EVENT_VERSION) };
}

/**
 * Batch entries decided where they are recorded (docs/architecture.md, "Where a single check is
 * decided"), against the batch service's own copy of the accounts. Until that copy has once caught up
 * with the account events, nothing is decided: the entries travel undecided to matching, which decides
 * them against its projection, rather than being answered "no account" by a copy still filling.
 */
export function entryDecisions(options: {
  /** With `leaveUnheld`: entries whose account the copy does not hold are left undecided. */
  decide: DecideRound;
  accounts: Pick<AccountProjection, 'caughtUp'>;
  clock: () => Date;
  /** The entries `decide` leaves undecided go to the requesting side (the payee may be at another bank). */
  unheldToPayeeBank?: boolean;
}): DecideEntries {
  const { decide, accounts, clock } = options;
  return async (batchId, requests) => {
    const eventIds = requests.map(() => randomUUID());
    if (!(await accounts.caughtUp())) return { eventIds, ends: new Map() };
    const now = clock();
    const metadata = entryMetadata(batchId);
    const ends = await decide(
      requests.map((data, index) =>
        requestEnvelope({ eventId: eventIds[index] as string, data, metadata }, now),
      ),
    );
    return { eventIds, ends, ...(options.unheldToPayeeBank && { undecidedToPayeeBank: true }) };
  };
}

/** The streams of a chunk of requests: each request with its end after it, when it was decided. */
export function entryStreams(
  batchId: string,
  requests: readonly VerificationRequestedData[],
  decided: DecidedEntries | undefined,
): { streams: { streamId: string; events: NewEvent[] }[]; ends: VerificationEnd[] } {
  const metadata = entryMetadata(batchId);
  const ends: VerificationEnd[] = [];
  const streams = requests.map((data, index) => {
    const eventId = decided?.eventIds[index];
    const end = eventId === undefined ? undefined : decided?.ends.get(eventId);
    if (end !== undefined) ends.push(...end.ends);
    const routed =
      end === undefined && decided?.undecidedToPayeeBank
        ? { ...data, routing: 'payee-bank' as const }
        : data;
    return requestStream(
      { ...(eventId !== undefined && { eventId }), data: routed, metadata },
      end,
    );
  });
  return { streams, ends };
}
