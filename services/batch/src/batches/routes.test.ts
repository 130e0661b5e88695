import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPgliteClient, EventStore, type RecordedEvent } from '@vop/event-store';
import { authorizeByFamily, createHttpApp, setPrincipal, type Principal } from '@vop/http';
import { createLogger } from '@vop/observability';
import { createPersonalData } from '@vop/personal-data';
import { germanIban, httpSpec } from '@vop/testing';
import { batchCommands } from './command-handler.js';
import { migrateBatchSchema } from '../migrate.js';
import { batchStreamId } from './decider.js';
import { createEntryBudget, type EntryBudgetSettings } from './entry-budget.js';
import { batchRoutes } from './routes.js';

const SCHEMA = 'batch';
const fixedDate = new Date('2026-03-02T10:15:00.000Z');
const participant: Principal = {
  kind: 'certificate',
  participantId: 'PSDDE-BAFIN-123456',
  fingerprint: 'cd'.repeat(32),
  admin: false,
};

/** The batch routes in process; with `entryBudget`, as a live deployment with those limits. */
const batchSpecWith = (entryBudget?: EntryBudgetSettings) =>
  httpSpec({
    setup: async () => {
      const sql = await createPgliteClient({});
      const store = new EventStore(sql, { schema: SCHEMA });
      const { keys, cipher } = createPersonalData(sql);
      await keys.migrate();
      await migrateBatchSchema(sql, store);
      let id = 0;
      const newId = () => `00000000-0000-4000-8000-${String(++id).padStart(12, '0')}`;
      const budget =
        entryBudget && createEntryBudget({ sql, schema: SCHEMA, settings: entryBudget });
      const commands = batchCommands({
        store,
        cipher,
        ...(budget && { entryBudget: budget }),
        clock: () => fixedDate,
        newId,
      });
      const app = createHttpApp({
        logger: createLogger({ service: 'spec', level: 'silent' }),
        respondingPsp: 'COBADEFFXXX',
        beforeRoutes: [
          (_req, res, next) => {
            setPrincipal(res, participant);
            next();
          },
          authorizeByFamily,
        ],
        routers: [batchRoutes({ commands, sql, schema: SCHEMA, cipher })],
      });
      return { store, app, close: () => sql.close() };
    },
  });
const batchSpec = batchSpecWith();

const verifications = [
  { id: 'e-1', iban: germanIban(1), name: 'Erika Mustermann' },
  { id: 'e-2', iban: germanIban(2), name: 'Max Mustermann' },
];

describe('batch routes (in process)', () => {
  it('given nothing, when a form 2 batch is posted, then 202 and the batch with one request per entry', () =>
    batchSpec
      .given([])
      .when((request) => request.post('/api/v1/batch', { batchId: 'b-1', verifications }))
      .then({
        status: 202,
        body: { batchId: 'b-1', status: 'PENDING' },
        events: (events: RecordedEvent[]) => {
          assert.deepEqual(
            events.map((event) => event.type),
            ['BatchSubmitted', 'VerificationRequested', 'VerificationRequested'],
          );
          assert.equal(events[0]?.streamId, batchStreamId('PSDDE-BAFIN-123456', 'b-1'));
          const requests = events.slice(1).map((event) => event.data as Record<string, unknown>);
          assert.deepEqual(
            requests.map((data) => [data.family, data.participant, data.batch]),
            [
              ['batch', 'PSDDE-BAFIN-123456', { batchId: 'b-1', entryId: 'e-1' }],
              ['batch', 'PSDDE-BAFIN-123456', { batchId: 'b-1', entryId: 'e-2' }],
            ],
          );
          // The typed names travel encrypted under the day's key, never in plain text.
          for (const data of requests) assert.doesNotMatch(String(data.name), /Mustermann/);
        },
      }));

  it('given a batch under this id with other entries, when posted, then 409 and nothing new', () =>
    batchSpec
      .given([
        {
          streamId: batchStreamId('PSDDE-BAFIN-123456', 'b-1'),
          events: [
            {
              type: 'BatchSubmitted',
              data: {
                batchId: 'b-1',
                participant: 'PSDDE-BAFIN-123456',
                form: 'iban',
                total: 1,
                entriesDigest: 'another',
                submittedAt: fixedDate.toISOString(),
              },
            },
          ],
        },
      ])
      .when((request) => request.post('/api/v1/batch', { batchId: 'b-1', verifications }))
      .then({
        status: 409,
        body: (body: { error: string }) => assert.equal(body.error, 'BATCH_CONFLICT'),
        events: [],
      }));

  it('when more than 10,000 entries are posted, then 413 BATCH_TOO_LARGE and nothing recorded', () =>
    batchSpec
      .given([])
      .when((request) =>
        request.post('/api/v1/batch', {
          batchId: 'big',
          verifications: Array.from({ length: 10_001 }, (_, index) => ({
            id: `e-${index}`,
            iban: germanIban(index),
            name: 'Erika Mustermann',
          })),
        }),
      )
      .then({
        status: 413,
        body: (body: { error: string; action: string }) => {
          assert.equal(body.error, 'BATCH_TOO_LARGE');
          assert.match(body.action, /Split/);
        },
        events: [],
      }));

  it('when the body is not JSON, CSV or NDJSON, then 415 and nothing recorded', () =>
    batchSpec
      .given([])
      .when((request) =>
        request.send('POST', '/api/v1/batch', {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      )
      .then({ status: 415, events: [] }));

  describe('live rate budget: batch entries', () => {
    // 1 live check a minute: 60 batch entries an hour.
    const liveSpec = batchSpecWith({ environment: 'live', livePerMinute: { default: 1 } });
    const entries = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        id: `e-${index}`,
        iban: germanIban(index),
        name: 'Erika Mustermann',
      }));

    it('given 50 of 60 entries drawn, when a 20-entry batch is posted, then 429 with Retry-After and nothing of it recorded', () =>
      liveSpec
        .given([])
        .when(async (request) => {
          const first = await request.post('/api/v1/batch', {
            batchId: 'fits',
            verifications: entries(50),
          });
          assert.equal(first.status, 202);
          return request.post('/api/v1/batch', { batchId: 'over', verifications: entries(20) });
        })
        .then({
          status: 429,
          body: (body: { error: string; action: string }) => {
            assert.equal(body.error, 'RATE_LIMIT_EXCEEDED');
            assert.match(body.action, /fewer entries/);
          },
          headers: { 'retry-after': '3600' },
          events: (events: RecordedEvent[]) =>
            assert.deepEqual(
              events
                .filter((event) => event.type === 'BatchSubmitted')
                .map((event) => (event.data as { batchId: string }).batchId),
              ['fits'],
            ),
        }));

    it('given the budget spent by a batch, when the same batch is posted again, then 202 (a resubmission draws nothing) and a 10-entry batch still fits', () =>
      liveSpec
        .given([])
        .when(async (request) => {
          const body = { batchId: 'fits', verifications: entries(50) };
          assert.equal((await request.post('/api/v1/batch', body)).status, 202);
          assert.equal((await request.post('/api/v1/batch', body)).status, 202);
          return request.post('/api/v1/batch', { batchId: 'more', verifications: entries(10) });
        })
        .then({
          status: 202,
          body: { batchId: 'more', status: 'PENDING' },
          events: (events: RecordedEvent[]) =>
            assert.equal(events.filter((event) => event.type === 'BatchSubmitted').length, 2),
        }));
  });
});
