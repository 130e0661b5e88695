import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IntegrationEnvelope } from '@vop/contracts';
import { createPgliteClient, EventStore, type SqlClient } from '@vop/event-store';
import { createNameMatcher } from '@vop/name-matching';
import { createMetricsRegistry, type ServiceMetrics } from '@vop/observability';
import { createPersonalData } from '@vop/personal-data';
import { germanIban } from '@vop/testing';
import { migrateAccountProjection, projectAccountEvent } from './account-projection.js';
import { roundDecisions } from './round-decisions.js';
import { recordDecision } from './decision-metrics.js';

const SCHEMA = 'decisions_metrics';
const HELD = germanIban(11);
const NOT_HELD = germanIban(12);
let sequence = 0;

/** A request from participant P1; `batch` makes it a batch entry. */
function request(iban: string, name: string, batch?: { batchId: string }): IntegrationEnvelope {
  sequence += 1;
  const verificationId = `2b000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`;
  return {
    eventId: verificationId.replace(/^.{8}/, 'eeeeeeee'),
    type: 'VerificationRequested',
    version: 1,
    occurredAt: '2026-03-02T10:00:00.000Z',
    correlationId: verificationId,
    data: {
      verificationId,
      family: batch ? 'batch' : 'scheme',
      iban,
      name,
      participant: 'PSDDE-BAFIN-100001',
      ...(batch && { batch: { batchId: batch.batchId, entryId: String(sequence) } }),
      requestedAt: '2026-03-02T10:00:00.000Z',
    },
  };
}

/** The value of one counter series, 0 when it was never incremented. */
async function valueOf(metrics: ServiceMetrics, name: string, channel: string): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((each) => each.name === name);
  const series = metric?.values.find(
    (value) =>
      value.labels.participant === 'PSDDE-BAFIN-100001' && value.labels.channel === channel,
  );
  return Number(series?.value ?? 0);
}

describe('NOAP answers counted per participant', () => {
  let sql: SqlClient;
  let store: EventStore;
  let metrics: ServiceMetrics;
  let decide: (envelope: IntegrationEnvelope) => Promise<void>;

  before(async () => {
    sql = await createPgliteClient({});
    store = new EventStore(sql, { schema: SCHEMA });
    await store.migrate();
    await migrateAccountProjection(sql, SCHEMA);
    await createPersonalData(sql).keys.migrate();
    await sql.transaction((tx) =>
      projectAccountEvent(
        tx,
        SCHEMA,
        {
          type: 'AccountOpened',
          data: {
            accountId: '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a02',
            iban: HELD,
            name: 'Erika Mustermann',
            holderType: 'person',
            alternateNames: [],
            status: 'active',
            createdAt: '2026-01-01T00:00:00.000Z',
          },
        },
        1,
      ),
    );
    metrics = createMetricsRegistry({ service: 'spec', collectDefaultMetrics: false });
    const decisions = roundDecisions({
      store,
      matcher: createNameMatcher(),
      cipher: createPersonalData(sql).cipher,
      clock: () => new Date('2026-03-02T10:00:01.000Z'),
      onDecided: recordDecision(metrics),
    });
    decide = async (envelope) => {
      await decisions.recordDelivered(await decisions.decide([envelope]), [envelope]);
    };
  });
  after(() => sql.close());

  it('given a single check of an account the bank does not hold, then its NOAP counts for the participant', async () => {
    await decide(request(NOT_HELD, 'Erika Mustermann'));
    assert.equal(await valueOf(metrics, 'verification_noap_total', 'single'), 1);
    assert.equal(await valueOf(metrics, 'verification_answers_total', 'single'), 1);
  });

  it('given a held account and another name (NMTC), then the answers count goes up and NOAP does not', async () => {
    await decide(request(HELD, 'Johann Beispielmann'));
    assert.equal(await valueOf(metrics, 'verification_noap_total', 'single'), 1);
    assert.equal(await valueOf(metrics, 'verification_answers_total', 'single'), 2);
  });

  it('given batch entries, then they count on the batch channel, apart from single checks', async () => {
    await decide(request(NOT_HELD, 'Erika Mustermann', { batchId: 'b-1' }));
    await decide(request(HELD, 'Erika Mustermann', { batchId: 'b-1' }));
    assert.equal(await valueOf(metrics, 'verification_noap_total', 'batch'), 1);
    assert.equal(await valueOf(metrics, 'verification_answers_total', 'batch'), 2);
    assert.equal(await valueOf(metrics, 'verification_noap_total', 'single'), 1);
  });

  it('exposes the counters labelled by participant and channel, never an IBAN or a name', async () => {
    const text = await metrics.registry.metrics();
    assert.match(
      text,
      /verification_noap_total\{participant="PSDDE-BAFIN-100001",channel="single",service="spec"\} 1/,
    );
    for (const personal of [HELD, NOT_HELD, 'Erika', 'Johann'])
      assert.equal(text.includes(personal), false, personal);
  });
});
