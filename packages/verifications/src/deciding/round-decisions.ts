import type { NameMatcher } from '@vop/name-matching';
import {
  parseVerificationRequested,
  VERIFICATION_EVENT_VERSION,
  type IntegrationEnvelope,
  type VerificationEnd,
} from '@vop/contracts';
import { writeTogether, type EventStore, type NewEvent } from '@vop/event-store';
import {
  accountSubject,
  type FieldCipher,
  isSealedUnder,
  protectMatchedName,
} from '@vop/personal-data';
import type { AccountCache } from './account-cache.js';
import { findAccountsByIbans, type MatchingAccount } from './account-projection.js';
import { endVerification, type VerificationEndCommand } from '../decider.js';
import { verificationStreamId } from '../stream-id.js';
import { decideOutcome } from './decide.js';

export interface Decision {
  family: string;
  outcome: string;
  reasons: string[];
  seconds: number;
  /** The requesting participant (a bank's identifier, never personal data), when the request names one. */
  participant?: string;
  /** A single check, or an entry of a batch. */
  channel: 'single' | 'batch';
}

/** A request's end as decided: the events that follow the request in its stream, and the end itself. */
export interface DecidedEnd {
  readonly events: NewEvent<VerificationEnd['type'], VerificationEnd['data']>[];
  readonly ends: VerificationEnd[];
}

/** The metadata of a request's end: caused by the request, in its correlation and trace. */
export function endMetadata(envelope: IntegrationEnvelope): Record<string, string> {
  const metadata: Record<string, string> = {
    correlationId: envelope.correlationId,
    causationId: envelope.eventId,
    schemaVersion: String(VERIFICATION_EVENT_VERSION),
  };
  if (envelope.traceparent) metadata.traceparent = envelope.traceparent;
  return metadata;
}

/** A request's end with the stream it is appended to. */
type CompletionStream = DecidedEnd & { streamId: string };

/**
 * Decides a round of requests outside any statement, keyed by each request's event id. `typedNames`, in
 * request order, are the typed names in plain text when the caller still has them (not decrypted again).
 */
export type DecideRound = (
  requests: IntegrationEnvelope[],
  typedNames?: readonly (string | undefined)[],
) => Promise<ReadonlyMap<string, DecidedEnd>>;

/**
 * Rounds of requests decided against the accounts, in two steps: the I/O around the pure rules
 * (`decide.ts`, `endVerification`). `decide` decides a round outside any statement (names are
 * decrypted and the disclosed name encrypted with cached keys; on PGlite a key lookup inside a
 * transaction would also wait behind it): a recorder passes it as its `decide`; matching decides
 * what was delivered to it. `recordDelivered` then appends the ends in one statement
 * (no transaction): a request whose completion stream exists was processed before and is skipped, so
 * the streams are the consumer's record of what it processed; the outbox relay publishes them.
 */
export function roundDecisions(options: {
  /** Where the completions are appended. */
  store: EventStore;
  /** The schema of the account projection; default: the store's. */
  accountsSchema?: string;
  /** The projection's rows in memory, trusted while the process hears of its changes (AccountProjection). */
  accountCache?: AccountCache;
  matcher: NameMatcher;
  cipher: FieldCipher;
  clock: () => Date;
  onDecided?: (decision: Decision) => void;
  /** A request matching could not decide (it ends as failed with reason ERROR). */
  onUndecidable?: (verificationId: string, error: unknown) => void;
  /**
   * Leave undecided a request whose IBAN the copy does not hold (the batch service: the payee may be
   * at another bank, which the requesting side asks); default: decided NOAP here.
   */
  leaveUnheld?: boolean;
}) {
  const { store, matcher, cipher, clock, onDecided, onUndecidable, accountCache } = options;
  const loadAccounts = (ibans: string[]) =>
    findAccountsByIbans(store.sql, options.accountsSchema ?? store.schema, ibans);

  /**
   * `typedNames`, in envelope order, are the typed names in plain text when the caller has them (the
   * recorder encrypted them a moment ago): they are not decrypted again.
   */
  async function decide(
    envelopes: IntegrationEnvelope[],
    typedNames?: readonly (string | undefined)[],
  ): Promise<Map<string, CompletionStream>> {
    const requests = envelopes.map((envelope) => ({
      envelope,
      request: parseVerificationRequested(envelope.type, envelope.data),
    }));
    const names =
      typedNames ?? (await cipher.decryptMany(requests.map(({ request }) => request.name ?? '')));
    const ibans = requests.map(({ request }) => request.iban);
    const { accounts, sealedNames } = await revealAccounts(
      cipher,
      accountCache === undefined
        ? await loadAccounts(ibans)
        : await accountCache.find(ibans, loadAccounts),
    );
    const prepared = new Map<string, CompletionStream>();
    for (const [index, { envelope, request }] of requests.entries()) {
      const metadata = endMetadata(envelope);
      const account = accounts.get(request.iban);
      if (account === undefined && options.leaveUnheld) continue;
      const typedName = request.name === undefined ? undefined : names[index];
      const started = process.hrtime.bigint();
      let command: VerificationEndCommand;
      try {
        const completed = decideOutcome({ ...request, name: typedName }, account, matcher, clock());
        onDecided?.({
          family: completed.family,
          outcome: completed.outcome,
          reasons: completed.reasons,
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
          ...(request.participant !== undefined && { participant: request.participant }),
          channel: request.batch === undefined ? 'single' : 'batch',
        });
        command = { type: 'CompleteVerification', completion: completed };
      } catch (error) {
        // Deciding is pure: what throws here throws on every retry, so the request ends as failed.
        onUndecidable?.(request.verificationId, error);
        command = {
          type: 'FailVerification',
          verificationId: request.verificationId,
          reason: 'ERROR',
          failedAt: clock().toISOString(),
        };
      }
      if (command.type === 'CompleteVerification') {
        const { matchedName } = command.completion;
        // The disclosed name is one of the holder's names, which the projection holds sealed under the
        // holder's key, as protectMatchedName would seal it: that value is disclosed, not a new one. It
        // costs no encryption, and the answer opens it from the values kept opened (field-cipher.ts).
        const sealed =
          matchedName === undefined ? undefined : sealedNames.get(request.iban)?.get(matchedName);
        command.completion =
          sealed === undefined
            ? await protectMatchedName(cipher, command.completion, account?.accountId)
            : { ...command.completion, matchedName: sealed };
      }
      const ends = [endVerification(request, command)];
      prepared.set(envelope.eventId, {
        streamId: verificationStreamId(request.verificationId),
        events: ends.map(({ type, data }) => ({ type, data, metadata })),
        ends,
      });
    }
    return prepared;
  }

  /** Appends the ends of delivered requests; one delivered again (its stream exists) is left alone. */
  async function recordDelivered(
    prepared: Map<string, CompletionStream>,
    envelopes: IntegrationEnvelope[],
  ): Promise<void> {
    await writeTogether(store.sql, [
      store.startStreamsWrite(completionStreams(prepared, envelopes), { ifExists: 'skip' }),
    ]);
  }

  return { decide, recordDelivered };
}
export type RoundDecisions = ReturnType<typeof roundDecisions>;

/** One stream per request, in delivery order (a request delivered twice in one batch counts once). */
function completionStreams(
  prepared: Map<string, CompletionStream>,
  envelopes: IntegrationEnvelope[],
): CompletionStream[] {
  const eventIds = new Set(envelopes.map((envelope) => envelope.eventId));
  return [...eventIds]
    .map((eventId) => prepared.get(eventId))
    .filter((stream): stream is CompletionStream => stream !== undefined);
}

/**
 * Holder names in plain text for matching; an erased holder (key destroyed) reads as an account no longer
 * active. `sealedNames`: per IBAN, each plain name's value as the projection holds it, when encrypted.
 */
async function revealAccounts(
  cipher: FieldCipher,
  accounts: Map<string, MatchingAccount>,
): Promise<{
  accounts: Map<string, MatchingAccount>;
  sealedNames: Map<string, Map<string, string>>;
}> {
  const list = [...accounts.values()];
  const encrypted = list.flatMap((account) => [account.name, ...account.alternateNames]);
  // The projection's names are read for every check: kept opened while their keys are live (field-cipher.ts).
  const plain = await cipher.decryptMany(encrypted, undefined, { keepOpened: true });
  const revealed = new Map<string, MatchingAccount>();
  const sealedNames = new Map<string, Map<string, string>>();
  let offset = 0;
  for (const account of list) {
    const names = plain.slice(offset, offset + 1 + account.alternateNames.length);
    const subject = accountSubject(account.accountId);
    const sealed = new Map<string, string>();
    for (const [index, name] of names.entries()) {
      const value = encrypted[offset + index];
      if (name !== undefined && isSealedUnder(value, subject)) sealed.set(name, value);
    }
    sealedNames.set(account.iban, sealed);
    offset += names.length;
    const [name, ...alternateNames] = names;
    revealed.set(
      account.iban,
      name === undefined
        ? { ...account, name: '', alternateNames: [], status: 'erased' }
        : {
            ...account,
            name,
            alternateNames: alternateNames.filter(
              (alternate): alternate is string => alternate !== undefined,
            ),
          },
    );
  }
  return { accounts: revealed, sealedNames };
}
