import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { VerificationFamily } from '@vop/contracts';
import type { EventStore, SqlClient } from '@vop/event-store';
import { createLogger } from '@vop/observability';
import {
  requestVerification,
  verificationRecorder,
  verificationStreamId,
} from '@vop/verifications';
import { freshGatewayStore, SPEC_SCHEMA as SCHEMA } from '../spec/in-process-edge.js';
import {
  pendingVerificationsWrite,
  migrateVerificationsReadModel,
  recordVerificationEnds,
} from '../verifications/read-model.js';
import { createTimeoutSweeper } from './timeout-sweeper.js';

const requestedAt = new Date('2026-03-02T10:00:00.000Z');
const limits = { synchronousMs: 3_000, deferredMs: 60_000, sweepIntervalMs: 1_000 };
const ids = {
  lateScheme: '1a000000-0000-4000-8000-000000000001',
  completedScheme: '1a000000-0000-4000-8000-000000000002',
  recentRequestResult: '1a000000-0000-4000-8000-000000000003',
  lateRequestResult: '1a000000-0000-4000-8000-000000000004',
};

describe('verification timeout sweeper', () => {
  let sql: SqlClient;
  let store: EventStore;
  let now = requestedAt;

  const sweeper = () =>
    createTimeoutSweeper({
      store,
      limits,
      logger: createLogger({ service: 'spec', level: 'silent' }),
      clock: () => now,
    });
  const typesOf = async (id: string) =>
    (await store.readStream(verificationStreamId(id))).map((event) => event.type);

  before(async () => {
    const fresh = await freshGatewayStore();
    ({ sql, store } = fresh);
    await migrateVerificationsReadModel(sql, SCHEMA);
    const record = verificationRecorder({
      store,
      cipher: fresh.cipher,
      inline: (requests) => pendingVerificationsWrite(SCHEMA, requests),
    });
    const requestOf = async (id: string, family: VerificationFamily, at: Date) =>
      record({
        data: requestVerification(
          { family, iban: 'DE89370400440532013000', name: 'Erika Mustermann', participant: 'P1' },
          { newId: () => id, now: () => at },
        ),
        metadata: { correlationId: id },
      });
    await requestOf(ids.lateScheme, 'scheme', requestedAt);
    await requestOf(ids.completedScheme, 'scheme', requestedAt);
    await requestOf(ids.lateRequestResult, 'request-result', requestedAt);
    await requestOf(ids.recentRequestResult, 'request-result', new Date('2026-03-02T10:00:30Z'));
    await sql.transaction((tx) =>
      recordVerificationEnds(tx, SCHEMA, [
        {
          type: 'VerificationCompleted',
          data: {
            verificationId: ids.completedScheme,
            family: 'scheme',
            outcome: 'MTCH',
            score: 1,
            reasons: [],
            completedAt: '2026-03-02T10:00:00.500Z',
          },
        },
      ]),
    );
  });
  after(() => sql.close());

  it('given pending verifications, when none is past its limit, then nothing is failed', async () => {
    now = new Date(requestedAt.getTime() + 2_000);
    assert.equal(await sweeper().sweep(), 0);
    assert.deepEqual(await typesOf(ids.lateScheme), ['VerificationRequested']);
  });

  it('given a synchronous one past its limit, when swept, then it fails once with TIMEOUT and the ended and deferred ones are left', async () => {
    now = new Date(requestedAt.getTime() + 5_000);
    assert.equal(await sweeper().sweep(), 1);
    const stream = await store.readStream(verificationStreamId(ids.lateScheme));
    assert.deepEqual(
      stream.map(({ type }) => type),
      ['VerificationRequested', 'VerificationFailed'],
    );
    assert.deepEqual(stream[1]?.data, {
      verificationId: ids.lateScheme,
      family: 'scheme',
      reason: 'TIMEOUT',
      participant: 'P1',
      failedAt: now.toISOString(),
    });
    assert.equal(stream[1]?.metadata.correlationId, ids.lateScheme);
    assert.deepEqual(await typesOf(ids.completedScheme), ['VerificationRequested']);
    assert.deepEqual(await typesOf(ids.lateRequestResult), ['VerificationRequested']);
    // Its row stays PENDING until the failure is read back from the topic: no second failure.
    assert.equal(await sweeper().sweep(), 0);
  });

  it('given a request/result one past the deferred limit, when swept, then only it fails', async () => {
    now = new Date(requestedAt.getTime() + 61_000);
    assert.equal(await sweeper().sweep(), 1);
    assert.deepEqual(await typesOf(ids.lateRequestResult), [
      'VerificationRequested',
      'VerificationFailed',
    ]);
    assert.deepEqual(await typesOf(ids.recentRequestResult), ['VerificationRequested']);
  });
});
