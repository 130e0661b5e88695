import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgliteClient, EventStore, type SqlClient } from '@vop/event-store';
import { authorizeByFamily, createHttpApp, setPrincipal, type Principal } from '@vop/http';
import { createLogger } from '@vop/observability';
import { germanIban, httpSpec } from '@vop/testing';
import {
  migrateAnalyticsReadModels,
  projectAnalyticsEvents,
  type AnalyticsEvent,
} from '../activity/projection.js';
import { analyticsRoutes } from './routes.js';

const SCHEMA = 'analytics';
const OTHER_BANK = { bic: 'BNPAFRPPXXX' };
const now = new Date('2026-03-02T23:00:00.000Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const admin: Principal = {
  kind: 'certificate',
  participantId: 'BANK-ADMIN',
  fingerprint: 'ad'.repeat(32),
  admin: true,
};

/** The analytics routes in process behind the edge, over a read model the `given` events fill. */
const analyticsSpec = httpSpec({
  setup: async () => {
    const sql = await createPgliteClient({});
    const store = new EventStore(sql, { schema: 'unused' });
    await store.migrate();
    await migrateAnalyticsReadModels(sql, SCHEMA);
    const app = createHttpApp({
      logger: createLogger({ service: 'spec', level: 'silent' }),
      respondingPsp: 'COBADEFFXXX',
      beforeRoutes: [
        (_req, res, next) => {
          setPrincipal(res, admin);
          next();
        },
        authorizeByFamily,
      ],
      routers: [analyticsRoutes({ sql, schema: SCHEMA, clock: () => now })],
    });
    return { store, sql, app, close: () => sql.close() };
  },
});

/** Projects the events into the read model; analytics appends nothing, so no streams are given. */
const projected =
  (events: AnalyticsEvent[]) =>
  async ({ sql }: { sql: SqlClient }) => {
    await sql.transaction((tx) => projectAnalyticsEvents(tx, SCHEMA, events));
    return [];
  };

function check(n: number, outcome: string, routedTo?: { bic: string }, reasons: string[] = []) {
  const common = { verificationId: id(n), family: 'immediate', ...(routedTo && { routedTo }) };
  return [
    {
      type: 'VerificationRequested',
      data: {
        ...common,
        iban: germanIban(n),
        name: 'Erika Mustermann',
        requestedAt: '2026-03-02T09:00:00Z',
      },
    },
    {
      type: 'VerificationCompleted',
      data: { ...common, outcome, score: 0, reasons, completedAt: '2026-03-02T09:00:01Z' },
    },
  ];
}

const answered = { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0 };

describe('GET /analytics/match-rates by responding bank (in process)', () => {
  it('given checks decided here and sent to another bank, when asked by=responding_bank, then each bank apart', () =>
    analyticsSpec
      .given(
        projected([
          ...check(1, 'MTCH'),
          ...check(2, 'NMTC', OTHER_BANK),
          ...check(3, 'NOAP', OTHER_BANK, ['RESPONDER_TIMEOUT']),
        ]),
      )
      .when((request) => request.get('/analytics/match-rates?by=responding_bank'))
      .then({
        status: 200,
        body: {
          from: '2026-02-23T23:00:00.000Z',
          to: now.toISOString(),
          granularity: 'day',
          periods: [
            {
              period: '2026-03-02T00:00:00.000Z',
              total: 3,
              counts: { MTCH: 1, CMTC: 0, NMTC: 1, NOAP: 1 },
              shares: { MTCH: 0.3333, CMTC: 0, NMTC: 0.3333, NOAP: 0.3333 },
            },
          ],
          totals: {
            total: 3,
            counts: { MTCH: 1, CMTC: 0, NMTC: 1, NOAP: 1 },
            shares: { MTCH: 0.3333, CMTC: 0, NMTC: 0.3333, NOAP: 0.3333 },
          },
          byRespondingBank: [
            {
              bank: 'own',
              periods: [
                {
                  period: '2026-03-02T00:00:00.000Z',
                  total: 1,
                  counts: { ...answered, MTCH: 1 },
                  shares: { ...answered, MTCH: 1 },
                  unanswered: { total: 0, reasons: {} },
                  availability: 1,
                },
              ],
              totals: {
                total: 1,
                counts: { ...answered, MTCH: 1 },
                shares: { ...answered, MTCH: 1 },
                unanswered: { total: 0, reasons: {} },
                availability: 1,
              },
            },
            {
              bank: 'BNPAFRPPXXX',
              periods: [
                {
                  period: '2026-03-02T00:00:00.000Z',
                  total: 1,
                  counts: { ...answered, NMTC: 1 },
                  shares: { ...answered, NMTC: 1 },
                  unanswered: { total: 1, reasons: { RESPONDER_TIMEOUT: 1 } },
                  availability: 0.5,
                },
              ],
              totals: {
                total: 1,
                counts: { ...answered, NMTC: 1 },
                shares: { ...answered, NMTC: 1 },
                unanswered: { total: 1, reasons: { RESPONDER_TIMEOUT: 1 } },
                availability: 0.5,
              },
            },
          ],
        },
        events: [],
      }));

  it('given a routed check, when asked without by, then the answer keeps its shape without the banks', () =>
    analyticsSpec
      .given(projected(check(1, 'MTCH', OTHER_BANK)))
      .when((request) => request.get('/analytics/match-rates'))
      .then({
        status: 200,
        body: (body: Record<string, unknown>) =>
          assert.deepEqual(Object.keys(body), ['from', 'to', 'granularity', 'periods', 'totals']),
        events: [],
      }));

  it('given nothing, when by names no known grouping, then 400 INVALID_REQUEST naming by (nested)', () =>
    analyticsSpec
      .given([])
      .when((request) => request.get('/analytics/match-rates?by=participant'))
      .then({
        status: 400,
        body: {
          error: {
            code: 'INVALID_REQUEST',
            message: 'Invalid query parameter: by',
            details: { field: 'by', reason: 'INVALID_VALUE' },
          },
        },
        events: [],
      }));
});
