import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  VerificationCompletedData,
  VerificationEvent,
  VerificationFailedData,
  VerificationRequestedData,
  VerificationEnd,
} from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { projectionSpec } from '@vop/testing';
import {
  completedDataOf,
  findEndedVerifications,
  findVerification,
  pendingVerificationsWrite,
  migrateVerificationsReadModel,
  recordVerificationEnds,
} from './read-model.js';

const SCHEMA = 'gateway';
const PARTICIPANT = 'PSDDE-BAFIN-123456';
const first = '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01';
const second = '5d6c2f7e-1b1a-4c3e-8f0e-2a9b7c4d1e02';
const unknown = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';

/**
 * The gateway writes these rows inline, not from events. This maps the events to those writes in
 * order, each run of one type as one batch, as the gateway batches them.
 */
async function projectVerificationEvents(tx: SqlExecutor, events: readonly VerificationEvent[]) {
  let requested: VerificationRequestedData[] = [];
  let ended: VerificationEnd[] = [];
  const flush = async () => {
    if (requested.length > 0) {
      const pending = pendingVerificationsWrite(SCHEMA, requested);
      await tx.query(pending.text, pending.params);
    }
    await recordVerificationEnds(tx, SCHEMA, ended);
    requested = [];
    ended = [];
  };
  for (const event of events) {
    if (event.type === 'VerificationRequested') {
      if (ended.length > 0) await flush();
      requested.push(event.data);
    } else {
      if (requested.length > 0) await flush();
      ended.push(event);
    }
  }
  await flush();
}

const spec = projectionSpec<VerificationEvent>({
  migrate: (sql) => migrateVerificationsReadModel(sql, SCHEMA),
  project: projectVerificationEvents,
});

function requested(verificationId: string, requestedAt: string): VerificationEvent {
  return {
    type: 'VerificationRequested',
    data: {
      verificationId,
      family: 'scheme',
      iban: 'DE89370400440532013000',
      name: 'Erika Mustermann',
      participant: PARTICIPANT,
      requestedAt,
    },
  };
}

const matched: VerificationCompletedData = {
  verificationId: first,
  family: 'scheme',
  outcome: 'CMTC',
  score: 0.87,
  matchedName: 'Erika Mustermann',
  reasons: ['name-close-match', 'initials'],
  idMatch: 'NOAP',
  completedAt: '2026-01-01T00:00:01.250Z',
};
/** Without the optional fields, which must stay absent after the round trip. */
const unmatched: VerificationCompletedData = {
  verificationId: second,
  family: 'scheme',
  outcome: 'NMTC',
  score: 0.12,
  reasons: [],
  completedAt: '2026-01-01T00:00:02.000Z',
};
const completed = (data: VerificationCompletedData): VerificationEnd => ({
  type: 'VerificationCompleted',
  data,
});

const timedOut: VerificationFailedData = {
  verificationId: first,
  family: 'scheme',
  reason: 'TIMEOUT',
  participant: PARTICIPANT,
  failedAt: '2026-01-01T00:00:30.000Z',
};
const failed = (data: VerificationFailedData): VerificationEnd => ({
  type: 'VerificationFailed',
  data,
});

const allRows = async (sql: SqlExecutor) =>
  (await sql.query(`SELECT * FROM ${SCHEMA}.verifications ORDER BY requested_at`)).rows;

async function completionOf(sql: SqlExecutor, id: string) {
  const row = await findVerification(sql, SCHEMA, id);
  assert.ok(row, `no verification ${id}`);
  return completedDataOf(row);
}

const pendingRow = (id: string, requestedAt: string) => ({
  id,
  family: 'scheme',
  status: 'PENDING',
  outcome: null,
  score: null,
  matched_name: null,
  reasons: null,
  id_match: null,
  requested_at: new Date(requestedAt),
  completed_at: null,
  participant: PARTICIPANT,
  failure_reason: null,
  failed_at: null,
  routed_to: null,
});

describe('gateway verifications read model', () => {
  it('given nothing, when a verification is requested, then its row is PENDING', async () => {
    await spec
      .given([])
      .when([requested(first, '2026-01-01T00:00:00.000Z')])
      .then(allRows, [pendingRow(first, '2026-01-01T00:00:00.000Z')]);
  });

  it('given a requested one, when it completes, then its row holds the answer', async () => {
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z')])
      .when([completed(matched)])
      .then(allRows, [
        {
          id: first,
          family: 'scheme',
          status: 'COMPLETED',
          outcome: 'CMTC',
          score: 0.87,
          matched_name: 'Erika Mustermann',
          reasons: ['name-close-match', 'initials'],
          id_match: 'NOAP',
          requested_at: new Date('2026-01-01T00:00:00.000Z'),
          completed_at: new Date('2026-01-01T00:00:01.250Z'),
          participant: PARTICIPANT,
          failure_reason: null,
          failed_at: null,
          routed_to: null,
        },
      ]);
  });

  it('given a check sent to the payee’s bank, when its answer completes it, then the row names that bank and the completion read back carries it', async () => {
    const routedTo = { bic: 'SIBBDEFFXXX', participant: 'PSDXX-SIBB-000001' };
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z')])
      .when([completed({ ...unmatched, verificationId: first, routedTo })])
      .then(async (sql) => (await completionOf(sql, first))?.routedTo, routedTo);
  });

  it('given two requested, when one completes, then only it is found completed', async () => {
    await spec
      .given([
        requested(first, '2026-01-01T00:00:00.000Z'),
        requested(second, '2026-01-01T00:00:00.500Z'),
      ])
      .when([completed(matched)])
      .then(
        (sql) => findEndedVerifications(sql, SCHEMA, [first, second, unknown]),
        [completed(matched)],
      );
  });

  it('given requested ones, when they complete, then completedDataOf returns them', async () => {
    await spec
      .given([
        requested(first, '2026-01-01T00:00:00.000Z'),
        requested(second, '2026-01-01T00:00:00.500Z'),
      ])
      .when([completed(matched), completed(unmatched)])
      .then(
        async (sql) => [await completionOf(sql, first), await completionOf(sql, second)],
        [matched, unmatched],
      );
  });

  it('given a requested one, when nothing completes it, then it has no completion', async () => {
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z')])
      .when([])
      .then((sql) => completionOf(sql, first), undefined);
  });

  it('given a requested one, when an unknown one completes, then nothing changes', async () => {
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z')])
      .when([completed({ ...matched, verificationId: unknown })])
      .then(allRows, [pendingRow(first, '2026-01-01T00:00:00.000Z')]);
  });

  it('given a requested one, when it fails, then its row is FAILED with the reason', async () => {
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z')])
      .when([failed(timedOut)])
      .then(allRows, [
        {
          ...pendingRow(first, '2026-01-01T00:00:00.000Z'),
          status: 'FAILED',
          failure_reason: 'TIMEOUT',
          failed_at: new Date('2026-01-01T00:00:30.000Z'),
        },
      ]);
  });

  it('given a failed one, when its completion comes late, then it stays failed', async () => {
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z'), failed(timedOut)])
      .when([completed(matched)])
      .then((sql) => findEndedVerifications(sql, SCHEMA, [first]), [failed(timedOut)]);
  });

  it('given a completed one, when a failure follows, then it stays completed', async () => {
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z'), completed(matched)])
      .when([failed(timedOut)])
      .then((sql) => findEndedVerifications(sql, SCHEMA, [first]), [completed(matched)]);
  });

  it('given a requested one, when a failure and a completion arrive in one batch, then the first wins', async () => {
    await spec
      .given([requested(first, '2026-01-01T00:00:00.000Z')])
      .when([failed(timedOut), completed(matched)])
      .then((sql) => findEndedVerifications(sql, SCHEMA, [first]), [failed(timedOut)]);
  });
});
