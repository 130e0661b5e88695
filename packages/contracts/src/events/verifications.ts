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
    completedAt: z.iso.datetime(),
  }),
});

export const VerificationEvent = z.discriminatedUnion('type', [
  VerificationRequested,
  VerificationCompleted,
]);
export type VerificationEvent = z.infer<typeof VerificationEvent>;
export type VerificationRequestedData = z.infer<typeof VerificationRequested>['data'];
export type VerificationCompletedData = z.infer<typeof VerificationCompleted>['data'];
export const VERIFICATION_EVENT_VERSION = 1;

/** The one parser of verification-requested data, from the type and data of a stored or delivered event. */
export function parseVerificationRequested(type: string, data: unknown): VerificationRequestedData {
  return VerificationRequested.parse({ type, data }).data;
}

/** The one parser of verification-completed data, from the type and data of a stored or delivered event. */
export function parseVerificationCompleted(type: string, data: unknown): VerificationCompletedData {
  return VerificationCompleted.parse({ type, data }).data;
}
