import { describe, it } from 'node:test';
import { createPgliteClient, type SqlExecutor } from '@vop/event-store';
import { germanIban, projectionSpec } from '@vop/testing';
import { findAccountStatus } from '../accounts/read-model.js';
import { accountHistory } from '../accounts/history.js';
import { requestFigures } from '../admin-figures/stats.js';
import { matchRatesReport } from '../match-rates/query.js';
import { usageReport } from '../usage/query.js';
import {
  ANALYTICS_TABLES,
  migrateAnalyticsReadModels,
  projectAnalyticsEvents,
  type AnalyticsEvent,
} from './projection.js';

const SCHEMA = 'analytics';
const IBAN = germanIban(1);
const NEW_IBAN = germanIban(2);
const ACCOUNT = '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (time: string) => `2026-03-02T${time}Z`;

const spec = projectionSpec<AnalyticsEvent>({
  migrate: (sql) => migrateAnalyticsReadModels(sql, SCHEMA),
  project: (tx, events) => projectAnalyticsEvents(tx, SCHEMA, events),
});

function requested(n: number, time: string, extra: Record<string, unknown> = {}): AnalyticsEvent {
  const data = {
    verificationId: id(n),
    family: 'scheme',
    iban: IBAN,
    name: 'Erika Mustermann',
    participant: 'PSDDE-BAFIN-1',
    requestedAt: at(time),
    ...extra,
  };
  return { type: 'VerificationRequested', data };
}

function completed(n: number, outcome: string, time: string, family = 'scheme'): AnalyticsEvent {
  const data = {
    verificationId: id(n),
    family,
    outcome,
    score: 1,
    reasons: [],
    completedAt: at(time),
  };
  return { type: 'VerificationCompleted', data };
}

function failed(n: number, time: string, family = 'scheme'): AnalyticsEvent {
  const data = { verificationId: id(n), family, reason: 'TIMEOUT', failedAt: at(time) };
  return { type: 'VerificationFailed', data };
}

function opened(revision: number, holderType = 'person'): AnalyticsEvent {
  const data = {
    accountId: ACCOUNT,
    iban: IBAN,
    name: 'enc:…',
    holderType,
    alternateNames: [],
    status: 'active',
    createdAt: at('08:00:00'),
  };
  return { type: 'AccountOpened', streamPosition: revision, data };
}

function updated(revision: number, status: string, iban = NEW_IBAN): AnalyticsEvent {
  const data = {
    accountId: ACCOUNT,
    iban,
    previousIban: IBAN,
    name: 'enc:…',
    alternateNames: [],
    status,
    updatedAt: at('12:00:00'),
  };
  return { type: 'AccountUpdated', streamPosition: revision, data };
}

const window = { from: new Date(at('00:00:00')), to: new Date(at('23:59:59')) };
const now = new Date(at('23:00:00'));
const usage = (sql: SqlExecutor) =>
  usageReport(sql, SCHEMA, { ...window, granularity: 'hour', now }).then(({ series, totals }) => ({
    series,
    totals,
  }));

describe('analytics projections', () => {
  it('given a completion, when its request arrives after it, then one row with the outcome and time', async () => {
    await spec
      .given([completed(1, 'MTCH', '10:00:00.250')])
      .when([requested(1, '10:00:00.000')])
      .then(
        async (sql) => {
          const { rows } = await sql.query(
            `SELECT outcome, response_ms, iban_masked FROM ${SCHEMA}.verifications`,
          );
          return rows;
        },
        [
          {
            outcome: 'MTCH',
            response_ms: 250,
            iban_masked: `${IBAN.slice(0, 4)}${'*'.repeat(14)}${IBAN.slice(-4)}`,
          },
        ],
      );
  });

  it('given nothing, when one delivery holds requests and completions of several verifications, then each row has its outcome and time', async () => {
    await spec
      .given([])
      .when([
        requested(1, '10:00:00.000'),
        requested(2, '10:00:00.100'),
        completed(1, 'MTCH', '10:00:00.040'),
        requested(3, '10:00:00.200'),
        completed(2, 'NMTC', '10:00:00.400'),
      ])
      .then(
        async (sql) => {
          const { rows } = await sql.query(
            `SELECT outcome, response_ms FROM ${SCHEMA}.verifications ORDER BY requested_at`,
          );
          return rows;
        },
        [
          { outcome: 'MTCH', response_ms: 40 },
          { outcome: 'NMTC', response_ms: 300 },
          { outcome: null, response_ms: null },
        ],
      );
  });

  it('given requests in two hours, when two complete, then usage counts them per hour, family and outcome (an entry still in its limit is pending)', async () => {
    await spec
      .given([
        requested(1, '10:05:00'),
        requested(2, '10:15:00'),
        requested(3, '22:50:00', { family: 'batch', batch: { batchId: 'b1', entryId: 'e1' } }),
      ])
      .when([completed(1, 'MTCH', '10:05:01'), completed(2, 'NMTC', '10:15:01')])
      .then(usage, {
        series: [
          {
            period: at('10:00:00.000'),
            total: 2,
            counts: [
              { family: 'scheme', outcome: 'MTCH', count: 1 },
              { family: 'scheme', outcome: 'NMTC', count: 1 },
            ],
          },
          {
            period: at('22:00:00.000'),
            total: 1,
            counts: [{ family: 'batch', outcome: 'PENDING', count: 1 }],
          },
        ],
        totals: {
          total: 3,
          byFamily: { scheme: 2, batch: 1 },
          byOutcome: { MTCH: 1, NMTC: 1, PENDING: 1 },
        },
      });
  });

  it('given a single check never answered and a late one, then both are failed; a no-match is not', async () => {
    await spec
      .given([requested(1, '10:00:00'), requested(2, '10:00:00'), requested(3, '10:00:00')])
      .when([completed(2, 'NMTC', '10:00:00.400'), completed(3, 'MTCH', '10:00:05')])
      .then((sql) => requestFigures(sql, SCHEMA, { from: window.from, now }), {
        total: 3,
        successful: 1,
        failed: 2,
        averageResponseMs: 400,
      });
  });

  it('given a single check and a batch entry, then admin figures count each apart', async () => {
    const entry = { family: 'batch', batch: { batchId: 'b1', entryId: 'e1' } };
    await spec
      .given([requested(1, '10:00:00'), requested(2, '10:00:00', entry)])
      .when([completed(1, 'MTCH', '10:00:00.200'), completed(2, 'MTCH', '10:03:00')])
      .then(
        async (sql) => ({
          single: await requestFigures(sql, SCHEMA, { from: window.from, now }, 'single'),
          batch: await requestFigures(sql, SCHEMA, { from: window.from, now }, 'batch'),
        }),
        {
          single: { total: 1, successful: 1, failed: 0, averageResponseMs: 200 },
          batch: { total: 1, successful: 1, failed: 0, averageResponseMs: 180_000 },
        },
      );
  });

  it('given a deferred request that failed, then admin figures and usage count it as failed', async () => {
    const deferred = { family: 'request-result' };
    await spec
      .given([requested(1, '10:00:00', deferred), requested(2, '10:00:00', deferred)])
      .when([failed(1, '10:00:30', 'request-result'), completed(2, 'NMTC', '10:00:01')])
      .then(
        async (sql) => ({
          figures: await requestFigures(sql, SCHEMA, { from: window.from, now }),
          usage: (await usageReport(sql, SCHEMA, { ...window, granularity: 'day', now })).totals
            .byOutcome,
        }),
        {
          figures: { total: 2, successful: 1, failed: 1, averageResponseMs: 1000 },
          usage: { FAILED: 1, NMTC: 1 },
        },
      );
  });

  it('given a failed verification, when its completion arrives late, then it stays failed (the first end wins)', async () => {
    const outcomes = (sql: SqlExecutor) =>
      usageReport(sql, SCHEMA, { ...window, granularity: 'day', now }).then(
        (report) => report.totals.byOutcome,
      );
    await spec
      .given([requested(1, '10:00:00'), failed(1, '10:00:30')])
      .when([completed(1, 'MTCH', '10:00:40')])
      .then(outcomes, { FAILED: 1 });
    await spec
      .given([requested(1, '10:00:00'), completed(1, 'MTCH', '10:00:01')])
      .when([failed(1, '10:00:30')])
      .then(outcomes, { MTCH: 1 });
  });

  it('given answered verifications, then match rates give counts and shares, by holder type', async () => {
    const events = [
      opened(1, 'organisation'),
      ...[1, 2, 3, 4].map((n) => requested(n, '09:00:00')),
      completed(1, 'MTCH', '09:00:01'),
      completed(2, 'MTCH', '09:00:01'),
      completed(3, 'CMTC', '09:00:01'),
      completed(4, 'NOAP', '09:00:01'),
    ];
    const rates = (holderType?: 'person' | 'organisation') => (sql: SqlExecutor) =>
      matchRatesReport(sql, SCHEMA, { ...window, granularity: 'day', holderType }).then(
        (report) => report.totals,
      );
    const expected = {
      total: 4,
      counts: { MTCH: 2, CMTC: 1, NMTC: 0, NOAP: 1 },
      shares: { MTCH: 0.5, CMTC: 0.25, NMTC: 0, NOAP: 0.25 },
    };
    await spec.given([]).when(events).then(rates('organisation'), expected);
    await spec.given([]).when(events).then(rates(), expected);
    await spec
      .given([])
      .when(events)
      .then(rates('person'), {
        total: 0,
        counts: { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0 },
        shares: { MTCH: 0, CMTC: 0, NMTC: 0, NOAP: 0 },
      });
  });

  it('given an account that moved to a new IBAN, then its history holds the verifications of both', async () => {
    await spec
      .given([opened(1), requested(1, '09:00:00'), completed(1, 'MTCH', '09:00:01')])
      .when([updated(2, 'blocked'), requested(2, '13:00:00', { iban: NEW_IBAN }), opened(1)])
      .then(
        async (sql) => ({
          status: await findAccountStatus(sql, SCHEMA, ACCOUNT),
          history: await accountHistory(sql, SCHEMA, { accountId: ACCOUNT, limit: 10, now }),
        }),
        {
          status: { accountId: ACCOUNT, status: 'blocked', updatedAt: at('12:00:00.000') },
          history: {
            verifications: [
              {
                verificationId: id(2),
                requestedAt: at('13:00:00.000'),
                family: 'scheme',
                outcome: 'FAILED',
                participant: 'PSDDE-BAFIN-1',
              },
              {
                verificationId: id(1),
                requestedAt: at('09:00:00.000'),
                family: 'scheme',
                outcome: 'MTCH',
                participant: 'PSDDE-BAFIN-1',
              },
            ],
            nextCursor: null,
          },
        },
      );
  });

  it('given an account that moved twice, when its events come newest first, then its history holds all three IBANs', async () => {
    const third = germanIban(3);
    const movedOn: AnalyticsEvent = {
      ...updated(3, 'active', third),
      data: { ...(updated(3, 'active', third).data as object), previousIban: NEW_IBAN },
    };
    await spec
      .given([])
      .when([
        movedOn,
        requested(3, '15:00:00', { iban: third }),
        requested(2, '13:00:00', { iban: NEW_IBAN }),
        requested(1, '09:00:00'),
        updated(2, 'active'),
        opened(1),
      ])
      .then(
        async (sql) =>
          (
            await accountHistory(sql, SCHEMA, { accountId: ACCOUNT, limit: 10, now })
          ).verifications.map((entry) => entry.verificationId),
        [id(3), id(2), id(1)],
      );
  });

  it('given an account that never moved, then its history holds its verifications, its IBAN kept once', async () => {
    await spec
      .given([opened(1), updated(2, 'blocked', IBAN)])
      .when([requested(1, '09:00:00')])
      .then(
        async (sql) => ({
          history: (
            await accountHistory(sql, SCHEMA, { accountId: ACCOUNT, limit: 10, now })
          ).verifications.map((entry) => entry.verificationId),
          ibansBesideTheRow: (
            await sql.query(`SELECT 1 FROM ${SCHEMA}.account_ibans WHERE account_id = $1`, [
              ACCOUNT,
            ])
          ).rows.length,
        }),
        { history: [id(1)], ibansBesideTheRow: 0 },
      );
  });

  it("given nothing, when one delivery holds an account's update before its opening, then the update counts", async () => {
    await spec
      .given([])
      .when([updated(2, 'blocked'), opened(1)])
      .then((sql) => findAccountStatus(sql, SCHEMA, ACCOUNT), {
        accountId: ACCOUNT,
        status: 'blocked',
        updatedAt: at('12:00:00.000'),
      });
  });

  it('given an account, when it is deleted, then it has no status', async () => {
    const deletedEvent: AnalyticsEvent = {
      type: 'AccountDeleted',
      streamPosition: 2,
      data: { accountId: ACCOUNT, iban: IBAN, deletedAt: at('15:00:00') },
    };
    await spec
      .given([opened(1)])
      .when([deletedEvent])
      .then((sql) => findAccountStatus(sql, SCHEMA, ACCOUNT), undefined);
  });

  it('given a completed batch, then usage counts the batch and its entries', async () => {
    const batch: AnalyticsEvent = {
      type: 'BatchCompleted',
      data: {
        batchId: 'b-1',
        participant: 'PSDDE-BAFIN-1',
        status: 'COMPLETED',
        total: 3,
        successful: 3,
        failed: 0,
        submittedAt: at('10:00:00'),
        completedAt: at('10:00:04'),
      },
    };
    await spec
      .given([])
      .when([batch, batch])
      .then(
        (sql) =>
          usageReport(sql, SCHEMA, { ...window, granularity: 'day', now }).then((r) => r.batches),
        { completed: 1, entries: 3 },
      );
  });

  it('given every kind of event, when each is delivered again after all the others, then every table is as after once (no processed ids are kept)', async () => {
    const batch: AnalyticsEvent = {
      type: 'BatchCompleted',
      data: {
        batchId: 'b-2',
        participant: 'PSDDE-BAFIN-1',
        status: 'COMPLETED',
        total: 1,
        successful: 1,
        failed: 0,
        submittedAt: at('10:00:00'),
        completedAt: at('10:00:04'),
      },
    };
    const events = [
      completed(1, 'MTCH', '09:00:01'),
      requested(1, '09:00:00'),
      requested(2, '09:30:00'),
      failed(2, '09:30:30'),
      completed(2, 'NMTC', '09:30:40'),
      requested(3, '10:00:00', { batch: { batchId: 'b-2', entryId: 'e-1' } }),
      completed(3, 'CMTC', '10:00:02', 'batch'),
      batch,
      opened(1),
      updated(2, 'blocked'),
    ];
    const once = await tablesAfter(events);
    await spec
      .given(events)
      .when([...events].reverse())
      .then(everyTable, once);
  });
});

/** Every analytics table's rows, each as JSON, sorted: what a read of any report is made from. */
async function everyTable(sql: SqlExecutor): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const table of ANALYTICS_TABLES) {
    const { rows } = await sql.query<{ row: string }>(
      `SELECT to_jsonb(t)::text AS row FROM ${SCHEMA}.${table} t`,
    );
    tables[table] = rows.map(({ row }) => row).sort();
  }
  return tables;
}

async function tablesAfter(events: AnalyticsEvent[]): Promise<Record<string, string[]>> {
  const sql = await createPgliteClient({});
  try {
    await migrateAnalyticsReadModels(sql, SCHEMA);
    await sql.transaction((tx) => projectAnalyticsEvents(tx, SCHEMA, events));
    return await everyTable(sql);
  } finally {
    await sql.close();
  }
}
