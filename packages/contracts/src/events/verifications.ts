import { z } from '../zod.js';
import { PartyIdentifiers } from './accounts.js';

/** The interface family a verification came in through; it decides the response shape, not the outcome. */
export const VerificationFamily = z.enum([
  'scheme',
  'epc',
  'request-result',
  'immediate',
  'simple',
  'account-number',
  'batch',
]);
export type VerificationFamily = z.infer<typeof VerificationFamily>;

export const NameMatchOutcome = z.enum(['MTCH', 'CMTC', 'NMTC', 'NOAP']);
export type NameMatchOutcome = z.infer<typeof NameMatchOutcome>;

/** The batch entry a verification answers (services/batch); absent on single checks. */
export const BatchEntryRef = z.object({ batchId: z.string(), entryId: z.string() });
export type BatchEntryRef = z.infer<typeof BatchEntryRef>;

/**
 * The payee's bank a verification was sent to (the requesting side, issue 40): its BIC and, when the
 * scheme directory names one, the participant (PSD2 authorisation number). Absent: decided here.
 */
export const RoutedTo = z.object({ bic: z.string(), participant: z.string().optional() });
export type RoutedTo = z.infer<typeof RoutedTo>;

export const VerificationRequested = z.object({
  type: z.literal('VerificationRequested'),
  data: z.object({
    verificationId: z.uuid(),
    family: VerificationFamily,
    iban: z.string(),
    /** Absent only on the EPC path when the caller asks by identification alone. */
    name: z.string().optional(),
    identification: PartyIdentifiers.optional(),
    requestingAgentBic: z.string().optional(),
    partyAgentBic: z.string().optional(),
    /** The participant (requesting PSP) the request came from, for analytics and audit. */
    participant: z.string().optional(),
    batch: BatchEntryRef.optional(),
    /** Sent to the payee's bank instead of decided against our accounts. */
    routedTo: RoutedTo.optional(),
    /**
     * Left undecided for the requesting side (services/gateway/src/requesting/): the recorder holds no
     * account for the IBAN or knows it is at another bank, so the gateway finds the payee's bank and asks
     * it (or decides it as ours). It travels on its own topic, which matching does not read.
     */
    routing: z.literal('payee-bank').optional(),
    /**
     * The recording process decided the request and recorded its end after it, in the same stream and
     * statement (packages/verifications/src/recorder.ts): matching does not decide it again, and it travels
     * on the `.decided` twin of its topic (packages/contracts/src/events/topics.ts).
     */
    decidedAtRecording: z.literal(true).optional(),
    requestedAt: z.iso.datetime(),
  }),
});

export const VerificationCompleted = z.object({
  type: z.literal('VerificationCompleted'),
  data: z.object({
    verificationId: z.uuid(),
    family: VerificationFamily,
    outcome: NameMatchOutcome,
    score: z.number().min(0).max(1),
    matchedName: z.string().optional(),
    reasons: z.array(z.string()),
    idMatch: z.enum(['MTCH', 'NMTC', 'NOAP']).optional(),
    /** Copied from the request, so consumers of completions (webhooks, batch progress) need not join. */
    participant: z.string().optional(),
    batch: BatchEntryRef.optional(),
    /**
     * The payee's bank that answered (or was asked and could not: outcome NOAP with a RESPONDER_* reason);
     * absent when decided against our accounts. Analytics reports match rates by it.
     */
    routedTo: RoutedTo.optional(),
    /** The end of a request decided where it was recorded: it travels on the `.decided` twin topic. */
    decidedAtRecording: z.literal(true).optional(),
    completedAt: z.iso.datetime(),
  }),
});

/** Why a verification ended without an outcome (design §4 `verification.failure`). */
export const VerificationFailureReason = z.enum(['TIMEOUT', 'ERROR']);
export type VerificationFailureReason = z.infer<typeof VerificationFailureReason>;

/**
 * A verification that could not be completed. An end like a completion, on the same topic under the same
 * key (a batch entry's on the batch completions topic): whichever of the two is appended first wins, and
 * every read model keeps the first it sees.
 */
export const VerificationFailed = z.object({
  type: z.literal('VerificationFailed'),
  data: z.object({
    verificationId: z.uuid(),
    family: VerificationFamily,
    reason: VerificationFailureReason,
    participant: z.string().optional(),
    batch: BatchEntryRef.optional(),
    /** The end of a request decided where it was recorded: it travels on the `.decided` twin topic. */
    decidedAtRecording: z.literal(true).optional(),
    failedAt: z.iso.datetime(),
  }),
});

export const VerificationEvent = z.discriminatedUnion('type', [
  VerificationRequested,
  VerificationCompleted,
  VerificationFailed,
]);
export type VerificationEvent = z.infer<typeof VerificationEvent>;
export type VerificationRequestedData = z.infer<typeof VerificationRequested>['data'];
export type VerificationCompletedData = z.infer<typeof VerificationCompleted>['data'];
export type VerificationFailedData = z.infer<typeof VerificationFailed>['data'];

/** The end of a verification, as read from the completions topic: an outcome, or a failure. */
export const VerificationEnd = z.discriminatedUnion('type', [
  VerificationCompleted,
  VerificationFailed,
]);
export type VerificationEnd = z.infer<typeof VerificationEnd>;
export const VERIFICATION_EVENT_VERSION = 1;

/** The one parser of verification-requested data, from the type and data of a stored or delivered event. */
export function parseVerificationRequested(type: string, data: unknown): VerificationRequestedData {
  return VerificationRequested.parse({ type, data }).data;
}

/** The one parser of verification-completed data, from the type and data of a stored or delivered event. */
export function parseVerificationCompleted(type: string, data: unknown): VerificationCompletedData {
  return VerificationCompleted.parse({ type, data }).data;
}

/** The one parser of what the completions topic carries (completions and failures). */
export function parseVerificationEnd(type: string, data: unknown): VerificationEnd {
  return VerificationEnd.parse({ type, data });
}

/** The one parser of verification-failed data. */
export function parseVerificationFailed(type: string, data: unknown): VerificationFailedData {
  return VerificationFailed.parse({ type, data }).data;
}
