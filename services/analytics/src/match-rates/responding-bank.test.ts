import { describe, it } from 'node:test';
import type { SqlClient, SqlExecutor } from '@vop/event-store';
import { germanIban, projectionSpec } from '@vop/testing';
import {
  migrateAnalyticsReadModels,
  projectAnalyticsEvents,
  type AnalyticsEvent,
} from '../activity/projection.js';
import { matchRatesReport } from './query.js';

const SCHEMA = 'analytics';
const OTHER_BANK = { bic: 'BNPAFRPPXXX', participant: 'PSDFR-ACPR-16188' };
const THIRD_BANK = { bic: 'INGBNL2AXXX' };
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (time: string) => `2026-03-02T${time}Z`;
type RoutedTo = { bic: string; participant?: string };

const spec = projectionSpec<AnalyticsEvent>({
  migrate: (sql) => migrateAnalyticsReadModels(sql, SCHEMA),
  project: (tx, events) => projectAnalyticsEvents(tx, SCHEMA, events),
});

function requested(n: number, time: string, routedTo?: RoutedTo): AnalyticsEvent {
  const data = {
    verificationId: id(n),
    family: 'immediate',
    iban: germanIban(n),
    name: 'Erika Mustermann',
    participant: 'PSDDE-BAFIN-1',
    requestedAt: at(time),
    ...(routedTo && { routedTo }),
  };
  return { type: 'VerificationRequested', data };
}

function completed(
  n: number,
  outcome: string,
  time: string,
  routedTo?: RoutedTo,
  reasons: string[] = [],
): AnalyticsEvent {
  const data = {
    verificationId: id(n),
    family: 'immediate',
    outcome,
    score: outcome === 'MTCH' ? 1 : 0,
    reasons,
    completedAt: at(time),
    ...(routedTo && { routedTo }),
  };
  return { type: 'VerificationCompleted', data };
}

/** A check sent to `bank`, and its answer (or the failure to get one, as `reasons`). */
const routed = (n: number, outcome: string, bank: RoutedTo, reasons: string[] = []) => [
  requested(n, '09:00:00', bank),
  completed(n, outcome, '09:00:01', bank, reasons),
];
const local = (n: number, outcome: string) => [
  requested(n, '09:00:00'),
  completed(n, outcome, '09:00:01'),
];

const window = { from: new Date(at('00:00:00')), to: new Date(at('23:59:59')) };
const byBank =
  (granularity: 'hour' | 'day' = 'day') =>
  (sql: SqlExecutor) =>
    matchRatesReport(sql, SCHEMA, { ...window, granularity, byRespondingBank: true }).then(
      (report) => report.byRespondingBank?.map(({ bank, totals }) => ({ bank, totals })),
    );

const figures = (
  counts: { MTCH?: number; CMTC?: number; NMTC?: number; NOAP?: number },
  unanswered: Record<string, number> = {},
) => {
  const all = { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0, ...counts };
  const total = all.MTCH + all.CMTC + all.NMTC + all.NOAP;
  const failures = Object.values(unanswered).reduce((sum, n) => sum + n, 0);
  const share = (n: number) => (total === 0 ? 0 : Math.round((n / total) * 10_000) / 10_000);
  return {
    total,
    counts: all,
    shares: {
      MTCH: share(all.MTCH),
      CMTC: share(all.CMTC),
      NMTC: share(all.NMTC),
      NOAP: share(all.NOAP),
    },
    unanswered: { total: failures, reasons: unanswered },
    availability: Math.round((total / (total + failures)) * 10_000) / 10_000,
  };
};

describe('match rates by responding bank', () => {
  it('given checks answered by two other banks and decided here, then each bank has its own counts, own first', async () => {
    await spec
      .given([...local(1, 'MTCH'), ...local(2, 'NOAP')])
      .when([
        ...routed(3, 'MTCH', OTHER_BANK),
        ...routed(4, 'CMTC', OTHER_BANK),
        ...routed(5, 'NMTC', OTHER_BANK),
        ...routed(6, 'NOAP', OTHER_BANK, ['ACCOUNT_NOT_FOUND']),
        ...routed(7, 'MTCH', THIRD_BANK),
      ])
      .then(byBank(), [
        { bank: 'own', totals: figures({ MTCH: 1, NOAP: 1 }) },
        { bank: 'BNPAFRPPXXX', totals: figures({ MTCH: 1, CMTC: 1, NMTC: 1, NOAP: 1 }) },
        { bank: 'INGBNL2AXXX', totals: figures({ MTCH: 1 }) },
      ]);
  });

  it('given checks a bank could not answer, then they count apart from its answers, by reason, and lower its availability', async () => {
    await spec
      .given([...routed(1, 'MTCH', OTHER_BANK), ...routed(2, 'NOAP', OTHER_BANK)])
      .when([
        ...routed(3, 'NOAP', OTHER_BANK, ['RESPONDER_TIMEOUT']),
        ...routed(4, 'NOAP', OTHER_BANK, ['RESPONDER_TIMEOUT']),
        ...routed(5, 'NOAP', OTHER_BANK, ['RESPONDER_UNAVAILABLE']),
        ...routed(6, 'NOAP', THIRD_BANK, ['RESPONDER_UNKNOWN']),
      ])
      .then(
        async (sql) => ({
          banks: await byBank()(sql),
          // Callers were answered NOAP: the totals of every bank together count them as such.
          totals: (await matchRatesReport(sql, SCHEMA, { ...window, granularity: 'day' })).totals
            .counts,
        }),
        {
          banks: [
            {
              bank: 'BNPAFRPPXXX',
              totals: {
                total: 2,
                counts: { MTCH: 1, CMTC: 0, NMTC: 0, NOAP: 1 },
                shares: { MTCH: 0.5, CMTC: 0, NMTC: 0, NOAP: 0.5 },
                unanswered: {
                  total: 3,
                  reasons: { RESPONDER_TIMEOUT: 2, RESPONDER_UNAVAILABLE: 1 },
                },
                availability: 0.4,
              },
            },
            { bank: 'INGBNL2AXXX', totals: figures({}, { RESPONDER_UNKNOWN: 1 }) },
          ],
          totals: { MTCH: 1, CMTC: 0, NMTC: 0, NOAP: 5 },
        },
      );
  });

  it('given a routed check answered in one hour and failed in another, then the periods are per bank and hour', async () => {
    await spec
      .given([requested(1, '09:10:00', OTHER_BANK), requested(2, '10:20:00', OTHER_BANK)])
      .when([
        completed(1, 'CMTC', '09:10:01', OTHER_BANK),
        completed(2, 'NOAP', '10:20:05', OTHER_BANK, ['RESPONDER_TIMEOUT']),
      ])
      .then(
        (sql) =>
          matchRatesReport(sql, SCHEMA, {
            ...window,
            granularity: 'hour',
            byRespondingBank: true,
          }).then((report) => report.byRespondingBank?.[0]?.periods),
        [
          { period: at('09:00:00.000'), ...figures({ CMTC: 1 }) },
          { period: at('10:00:00.000'), ...figures({}, { RESPONDER_TIMEOUT: 1 }) },
        ],
      );
  });

  it('given a routed failure, when it is delivered again and its request after it, then it counts once', async () => {
    const check = routed(1, 'NOAP', OTHER_BANK, ['RESPONDER_TIMEOUT']);
    await spec
      .given([check[1]!, ...routed(2, 'MTCH', OTHER_BANK)])
      .when([check[1]!, check[0]!, check[1]!])
      .then(byBank(), [
        { bank: 'BNPAFRPPXXX', totals: figures({ MTCH: 1 }, { RESPONDER_TIMEOUT: 1 }) },
      ]);
  });

  it('given a responder failure whose events name no bank, then it counts under unknown, not as ours', async () => {
    await spec
      .given([...local(1, 'MTCH')])
      .when([
        requested(2, '09:00:00'),
        completed(2, 'NOAP', '09:00:01', undefined, ['RESPONDER_UNKNOWN']),
      ])
      .then(byBank(), [
        { bank: 'own', totals: figures({ MTCH: 1 }) },
        { bank: 'unknown', totals: figures({}, { RESPONDER_UNKNOWN: 1 }) },
      ]);
  });

  it('given a routed check, when asked without the grouping, then the answer has no per-bank figures', async () => {
    await spec
      .given([])
      .when(routed(1, 'MTCH', OTHER_BANK))
      .then(
        (sql) =>
          matchRatesReport(sql, SCHEMA, { ...window, granularity: 'day' }).then(
            (report) => 'byRespondingBank' in report,
          ),
        false,
      );
  });
});

/** The activity table as the projection left it before checks could be sent to other banks. */
async function tableBeforeRouting(sql: SqlClient): Promise<void> {
  await sql.query(`CREATE SCHEMA ${SCHEMA}`);
  await sql.query(
    `CREATE TABLE ${SCHEMA}.verifications (verification_id uuid PRIMARY KEY, family text NOT NULL,
       participant text, batch_id text, iban_hash text, iban_masked text, typed_name text,
       requested_at timestamptz, outcome text, score double precision, completed_at timestamptz,
       response_ms integer, failure_reason text)`,
  );
  await sql.query(
    `INSERT INTO ${SCHEMA}.verifications (verification_id, family, requested_at, outcome, completed_at)
     VALUES ($1, 'scheme', $2, 'NMTC', $2)`,
    [id(99), at('08:00:00')],
  );
}

describe('match rates by responding bank, over rows projected before routing', () => {
  const upgraded = projectionSpec<AnalyticsEvent>({
    migrate: async (sql) => {
      await tableBeforeRouting(sql);
      await migrateAnalyticsReadModels(sql, SCHEMA);
    },
    project: (tx, events) => projectAnalyticsEvents(tx, SCHEMA, events),
  });

  it('given a row from before the migration, when a routed check arrives, then the old row counts as ours', async () => {
    await upgraded
      .given([])
      .when(routed(1, 'MTCH', THIRD_BANK))
      .then(byBank(), [
        { bank: 'own', totals: figures({ NMTC: 1 }) },
        { bank: 'INGBNL2AXXX', totals: figures({ MTCH: 1 }) },
      ]);
  });
});
