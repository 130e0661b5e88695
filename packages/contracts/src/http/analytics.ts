import { VisibleText } from '../identifiers.js';
import { VerificationFamily } from '../events/verifications.js';
import { HolderType } from '../events/accounts.js';
import { z } from '../zod.js';

/** Time buckets of the analytics series. */
export const Granularity = z.enum(['hour', 'day']);
export type Granularity = z.infer<typeof Granularity>;

const Instant = z.iso.datetime({ offset: true });

/** GET /analytics/usage: the window [from, to), the bucket, optional filters. */
export const UsageQuery = z.strictObject({
  from: Instant.optional(),
  to: Instant.optional(),
  granularity: Granularity.default('day'),
  participant: VisibleText(100).optional(),
  family: VerificationFamily.optional(),
});
export type UsageQuery = z.infer<typeof UsageQuery>;

/** GET /analytics/match-rates. */
export const MatchRatesQuery = z.strictObject({
  from: Instant.optional(),
  to: Instant.optional(),
  granularity: Granularity.default('day'),
  participant: VisibleText(100).optional(),
  holderType: HolderType.optional(),
  /** `responding_bank`: the answer also holds `byRespondingBank` (issue 40, the requesting side). */
  by: z.enum(['responding_bank']).optional(),
});
export type MatchRatesQuery = z.infer<typeof MatchRatesQuery>;

/** An outcome, or what a verification without one counts as (design §4: failed = not completed). */
export const UsageOutcome = z.enum(['MTCH', 'CMTC', 'NMTC', 'NOAP', 'PENDING', 'FAILED']);
export type UsageOutcome = z.infer<typeof UsageOutcome>;

const Counts = z.record(z.string(), z.number().int().nonnegative());

export const UsageReport = z.object({
  from: z.string(),
  to: z.string(),
  granularity: Granularity,
  series: z.array(
    z.object({
      period: z.string(),
      total: z.number().int(),
      counts: z.array(
        z.object({ family: VerificationFamily, outcome: UsageOutcome, count: z.number().int() }),
      ),
    }),
  ),
  totals: z.object({ total: z.number().int(), byFamily: Counts, byOutcome: Counts }),
  batches: z.object({ completed: z.number().int(), entries: z.number().int() }),
});
export type UsageReport = z.infer<typeof UsageReport>;

const OutcomeCounts = z.object({
  MTCH: z.number().int(),
  CMTC: z.number().int(),
  NMTC: z.number().int(),
  NOAP: z.number().int(),
});
const OutcomeShares = z.object({
  MTCH: z.number(),
  CMTC: z.number(),
  NMTC: z.number(),
  NOAP: z.number(),
});
const MatchRatePeriod = z.object({
  total: z.number().int(),
  counts: OutcomeCounts,
  shares: OutcomeShares,
});
/**
 * One responding bank's figures: `total`, `counts` and `shares` are its answers (a NOAP it gave included);
 * `unanswered` the checks it was sent and could not answer (NOAP with a RESPONDER_* reason, by reason);
 * `availability` the share of the checks sent to it that it answered.
 */
const RespondingBankPeriod = MatchRatePeriod.extend({
  unanswered: z.object({ total: z.number().int(), reasons: Counts }),
  availability: z.number(),
});
export const RespondingBankRates = z.object({
  /** The payee's bank's BIC; `own` for verifications decided against our own accounts. */
  bank: z.string(),
  periods: z.array(RespondingBankPeriod.extend({ period: z.string() })),
  totals: RespondingBankPeriod,
});
export type RespondingBankRates = z.infer<typeof RespondingBankRates>;

export const MatchRatesReport = z.object({
  from: z.string(),
  to: z.string(),
  granularity: Granularity,
  periods: z.array(MatchRatePeriod.extend({ period: z.string() })),
  totals: MatchRatePeriod,
  /** With `by=responding_bank`: `own` first, then the banks by BIC. */
  byRespondingBank: z.array(RespondingBankRates).optional(),
});
export type MatchRatesReport = z.infer<typeof MatchRatesReport>;

export const AccountStatusResponse = z.object({
  accountId: z.string(),
  status: z.enum(['active', 'closed', 'blocked']),
  available: z.boolean(),
  updated_at: z.string(),
});
export type AccountStatusResponse = z.infer<typeof AccountStatusResponse>;

export const AccountHistoryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/)
    .optional(),
});

export const AccountHistoryResponse = z.object({
  accountId: z.string(),
  verifications: z.array(
    z.object({
      verificationId: z.string(),
      requestedAt: z.string(),
      family: VerificationFamily,
      outcome: UsageOutcome,
      participant: z.string().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});
export type AccountHistoryResponse = z.infer<typeof AccountHistoryResponse>;

/** GET /admin/stats. */
export const StatsPeriod = z.enum(['today', 'hour', 'week', 'month']);
export type StatsPeriod = z.infer<typeof StatsPeriod>;
export const StatsQuery = z.strictObject({ period: StatsPeriod.default('today') });
const RequestFigures = z.object({
  total: z.number().int(),
  successful: z.number().int(),
  failed: z.number().int(),
  averageResponseTime: z.string(),
});
export const StatsResponse = z.object({
  period: StatsPeriod,
  /** Single checks, every family but batches. */
  requests: RequestFigures,
  /** The entries of batches, apart: their response time is the batch's, minutes rather than ms. */
  batchEntries: RequestFigures,
  uptime: z.string(),
  version: z.string(),
});
export type StatsResponse = z.infer<typeof StatsResponse>;

/** GET /admin/verifications. */
export const RecentVerificationsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  status: z.enum(['failed']).optional(),
});
export const RecentVerificationsResponse = z.object({
  verifications: z.array(
    z.object({
      id: z.string(),
      /** Masked ("E**** M*********"); null once the typed name's retention has passed. */
      name: z.string().nullable(),
      /** Masked: country, check digits and the last four characters. */
      iban: z.string().nullable(),
      result: UsageOutcome,
      timestamp: z.string(),
    }),
  ),
  total: z.number().int(),
});
export type RecentVerificationsResponse = z.infer<typeof RecentVerificationsResponse>;
