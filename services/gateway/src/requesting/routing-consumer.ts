import { parseVerificationRequested, type IntegrationEnvelope } from '@vop/contracts';
import { type EventStore, writeTogether } from '@vop/event-store';
import type { IncomingMessage } from '@vop/messaging';
import { parseEnvelope } from '@vop/outbox';
import type { FieldCipher } from '@vop/personal-data';
import {
  type DecideRound,
  notHeldDecisions,
  type PayeeBankAnswer,
  verificationStreamId,
  withPayeeBankAnswers,
} from '@vop/verifications';
import type { PayeeBanks } from './ask-payee-bank.js';

/** How long to wait before asking again for a place in a payee bank's budget (nothing was sent). */
const BUSY_BACKOFF_MS = 50;

/**
 * The requesting side's consumer of requests left to it (marked `routing`: request/result checks
 * about payees at other banks, batch entries the batch service holds no account for). Each delivery:
 * the requests already ended (delivered again) are skipped; the others' payee banks are asked at
 * once, each within the scheme's deadline, and the rest (ours after all) decided against our own
 * accounts; then every end is appended, a new stream per request in this consumer's own store, in
 * one statement that skips a stream that exists. Its relay publishes the ends on the completions
 * topics, where the gateway's results and the batch progress read them.
 */
export function routedRequests(options: {
  /** The consumer's own store (`<gateway schema>_routing`): its streams are its record of what it did. */
  store: EventStore;
  banks: PayeeBanks;
  /** Our own decisions (the gateway's copy of the accounts); none: a request that is ours is NOAP. */
  local: DecideRound | undefined;
  cipher: FieldCipher;
  clock: () => Date;
  /** The scheme's deadline for one request's payee bank (request/result, batch: 5 s). */
  deadlineMs: number;
}) {
  const { store, banks, cipher, clock, deadlineMs } = options;

  async function askPatiently(
    request: ReturnType<typeof parseVerificationRequested>,
    bank: NonNullable<ReturnType<PayeeBanks['otherBankOf']>>,
  ): Promise<PayeeBankAnswer> {
    const started = performance.now();
    for (;;) {
      const left = deadlineMs - (performance.now() - started);
      const answer = await banks.ask(request, bank, Math.max(1, Math.floor(left)));
      // BUSY is our own budget: the bank was not called, so waiting for a place doubles nothing.
      if (answer.kind !== 'failed' || answer.reason !== 'RESPONDER_BUSY') return answer;
      if (left <= BUSY_BACKOFF_MS) return answer;
      await new Promise((resolve) => setTimeout(resolve, BUSY_BACKOFF_MS));
    }
  }

  async function handle(messages: IncomingMessage[]): Promise<void> {
    const delivered = dedupe(messages.map(parseEnvelope));
    const requests = delivered.map((envelope) =>
      parseVerificationRequested(envelope.type, envelope.data),
    );
    const ended = await store.readStreams(
      requests.map((request) => verificationStreamId(request.verificationId)),
    );
    const open = delivered
      .map((envelope, index) => ({ envelope, request: requests[index] }))
      .filter(
        (each): each is { envelope: IntegrationEnvelope; request: (typeof requests)[number] } =>
          each.request !== undefined &&
          !ended.has(verificationStreamId(each.request.verificationId)),
      );
    if (open.length === 0) return;
    const names = await cipher.decryptMany(open.map(({ request }) => request.name ?? ''));
    const now = clock();
    const answers = new Map<string, PayeeBankAnswer>();
    await Promise.all(
      open.map(async ({ request }, index) => {
        const bank = banks.otherBankOf(request, now);
        if (bank === undefined) return;
        const name = request.name === undefined ? undefined : names[index];
        answers.set(
          request.verificationId,
          await askPatiently({ ...request, ...(name !== undefined && { name }) }, bank),
        );
      }),
    );
    const decide = withPayeeBankAnswers({
      answers,
      local: options.local ?? notHeldDecisions(clock),
      cipher,
      clock,
      leaveMarked: false,
    });
    const envelopes = open.map(({ envelope }) => envelope);
    const decided = await decide(envelopes, names);
    const streams = open.flatMap(({ envelope, request }) => {
      const end = decided.get(envelope.eventId);
      return end === undefined
        ? []
        : [{ streamId: verificationStreamId(request.verificationId), events: end.events }];
    });
    await writeTogether(store.sql, [store.startStreamsWrite(streams, { ifExists: 'skip' })]);
  }

  return { handle };
}

/** One envelope per event id (a request delivered twice in one batch counts once). */
function dedupe(envelopes: IntegrationEnvelope[]): IntegrationEnvelope[] {
  const seen = new Set<string>();
  return envelopes.filter((envelope) => !seen.has(envelope.eventId) && seen.add(envelope.eventId));
}
