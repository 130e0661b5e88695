import {
  parseVerificationRequested,
  type IntegrationEnvelope,
  type NameMatchOutcome,
  type VerificationCompletedData,
  type VerificationRequestedData,
} from '@vop/contracts';
import { type FieldCipher, protectAnsweredName } from '@vop/personal-data';
import { endVerification } from '../decider.js';
import { endMetadata, type DecidedEnd, type DecideRound } from './round-decisions.js';

/**
 * What the payee's bank answered to a routed check, or why it could not (`@vop/requester`'s answer has
 * this shape; a payee bank that cannot be found fails before any call).
 */
export type PayeeBankAnswer =
  | {
      kind: 'answered';
      bic: string;
      participant: string;
      answer: {
        partyNameMatch?: NameMatchOutcome;
        matchedName?: string;
        partyIdMatch?: 'MTCH' | 'NMTC' | 'NOAP';
      };
    }
  | { kind: 'failed'; bic?: string; participant?: string; reason: string };

/**
 * The payee's bank answers a word, not a score: the score of a routed answer is the word's, so the
 * families that show one (immediate's confidence_score, simple's confidence) read the same for it.
 */
const ANSWER_SCORES: Record<NameMatchOutcome, number> = { MTCH: 1, CMTC: 0.8, NMTC: 0, NOAP: 0 };

/** The reason of an answer the payee's bank gave (a failure's reason is its own: RESPONDER_*). */
export const ANSWERED_BY_PAYEE_BANK = 'ANSWERED_BY_PAYEE_BANK';

/**
 * Pure: the completion of a routed request from its bank's answer. A failure is NOAP with its
 * RESPONDER_* reason, never NMTC: the payer must not read "the bank could not answer" as "wrong name".
 */
export function completionFromAnswer(
  request: VerificationRequestedData,
  answer: PayeeBankAnswer,
  now: Date,
): VerificationCompletedData {
  // No BIC at all: the IBAN's bank code is in no table; analytics counts such a check as `unknown`.
  const bic = answer.bic ?? request.routedTo?.bic ?? request.partyAgentBic;
  const base = {
    verificationId: request.verificationId,
    family: request.family,
    completedAt: now.toISOString(),
    ...(bic !== undefined && {
      routedTo: {
        bic,
        ...(answer.participant !== undefined && { participant: answer.participant }),
      },
    }),
  };
  if (answer.kind === 'failed')
    return {
      ...base,
      outcome: 'NOAP',
      score: 0,
      reasons: [answer.reason],
      ...(request.identification && { idMatch: 'NOAP' as const }),
    };
  const { partyNameMatch, matchedName, partyIdMatch } = answer.answer;
  const outcome = request.name === undefined ? 'NOAP' : (partyNameMatch ?? 'NOAP');
  return {
    ...base,
    outcome,
    score: ANSWER_SCORES[outcome],
    // A disclosed name is kept only where the families show one (MTCH and CMTC).
    ...(matchedName !== undefined && (outcome === 'MTCH' || outcome === 'CMTC') && { matchedName }),
    reasons: request.name === undefined ? ['NAME_NOT_PROVIDED'] : [ANSWERED_BY_PAYEE_BANK],
    ...(request.identification && { idMatch: partyIdMatch ?? 'NOAP' }),
  };
}

/**
 * A round's decisions where some requests were answered by their payee's bank before recording: those
 * end with the bank's answer (the disclosed name sealed under the request's day key), the others are
 * decided by `local` (the gateway's own decisions), or left undecided without it; a request marked
 * `routing` is left undecided for the requesting side's consumer.
 */
export function withPayeeBankAnswers(options: {
  answers: ReadonlyMap<string, PayeeBankAnswer>;
  local: DecideRound | undefined;
  cipher: FieldCipher;
  clock: () => Date;
  /** Default true (a recorder's round); false for the requesting side's consumer, which decides them. */
  leaveMarked?: boolean;
}): DecideRound {
  const { answers, local, cipher, clock } = options;
  const leaveMarked = options.leaveMarked ?? true;
  return async (envelopes, typedNames) => {
    const routed: IntegrationEnvelope[] = [];
    const others: IntegrationEnvelope[] = [];
    const otherNames: (string | undefined)[] = [];
    for (const [index, envelope] of envelopes.entries()) {
      const data = envelope.data as { verificationId?: unknown; routing?: unknown };
      if (typeof data.verificationId === 'string' && answers.has(data.verificationId))
        routed.push(envelope);
      // Left to the requesting side's consumer (services/gateway/src/requesting/): not decided here.
      else if (leaveMarked && data.routing !== undefined) continue;
      else {
        others.push(envelope);
        otherNames.push(typedNames?.[index]);
      }
    }
    // A round with nothing routed (most rounds) is the local decisions' as they are, not copied.
    if (routed.length === 0 && others.length === envelopes.length)
      return local === undefined ? new Map() : local(envelopes, typedNames);
    const decided = new Map<string, DecidedEnd>(
      others.length > 0 && local !== undefined ? await local(others, typedNames && otherNames) : [],
    );
    for (const envelope of routed) {
      const request = parseVerificationRequested(envelope.type, envelope.data);
      const answer = answers.get(request.verificationId);
      if (answer === undefined) continue;
      const completion = await protectAnsweredName(
        cipher,
        completionFromAnswer(request, answer, clock()),
        request.requestedAt,
      );
      const end = endVerification(request, { type: 'CompleteVerification', completion });
      const metadata = endMetadata(envelope);
      decided.set(envelope.eventId, {
        events: [{ type: end.type, data: end.data, metadata }],
        ends: [end],
      });
    }
    return decided;
  };
}

/**
 * Decisions for requests found to be ours where no copy of our accounts is kept (a gateway that
 * leaves single checks to matching): the batch service's copy held no account for them, so each ends
 * NOAP as not found, as that copy would have decided it.
 */
export function notHeldDecisions(clock: () => Date): DecideRound {
  return (envelopes) => {
    const decided = new Map<string, DecidedEnd>();
    for (const envelope of envelopes) {
      const request = parseVerificationRequested(envelope.type, envelope.data);
      const end = endVerification(request, {
        type: 'CompleteVerification',
        completion: {
          verificationId: request.verificationId,
          family: request.family,
          outcome: 'NOAP',
          score: 0,
          reasons: ['ACCOUNT_NOT_FOUND'],
          ...(request.identification && { idMatch: 'NOAP' as const }),
          completedAt: clock().toISOString(),
        },
      });
      decided.set(envelope.eventId, {
        events: [{ type: end.type, data: end.data, metadata: endMetadata(envelope) }],
        ends: [end],
      });
    }
    return Promise.resolve(decided);
  };
}
