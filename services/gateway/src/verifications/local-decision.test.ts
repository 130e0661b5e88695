import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { IntegrationEnvelope, VerificationEnd } from '@vop/contracts';
import type { EventStore, SqlClient } from '@vop/event-store';
import {
  requestVerification,
  verificationRecorder,
  verificationStreamId,
  type DecidedEnd,
  type DecideRound,
  type RecordVerification,
} from '@vop/verifications';
import { freshGatewayStore, SPEC_SCHEMA as SCHEMA } from '../spec/in-process-edge.js';
import {
  findVerification,
  migrateVerificationsReadModel,
  verificationsWrite,
} from './read-model.js';

const completedAt = '2026-03-02T10:00:01.000Z';

/** Completes every request MTCH, except the verifications it is told to leave out. */
function decideRound(options: { leaveOut?: string[] } = {}) {
  const seen: IntegrationEnvelope[] = [];
  const decide: DecideRound = async (envelopes) => {
    seen.push(...envelopes);
    const decided = new Map<string, DecidedEnd>();
    for (const envelope of envelopes) {
      const { verificationId, family } = envelope.data as {
        verificationId: string;
        family: 'scheme';
      };
      if (options.leaveOut?.includes(verificationId)) continue;
      const end: VerificationEnd = {
        type: 'VerificationCompleted',
        data: { verificationId, family, outcome: 'MTCH', score: 1, reasons: [], completedAt },
      };
      decided.set(envelope.eventId, {
        ends: [end],
        events: [{ type: end.type, data: end.data, metadata: { causationId: envelope.eventId } }],
      });
    }
    return decided;
  };
  return { decide, seen };
}

describe('single checks decided in the statement that records them', () => {
  let sql: SqlClient;
  let store: EventStore;
  let cipher: Awaited<ReturnType<typeof freshGatewayStore>>['cipher'];

  before(async () => {
    ({ sql, store, cipher } = await freshGatewayStore());
    await migrateVerificationsReadModel(sql, SCHEMA);
  });

  const recorderWith = (decide: DecideRound): RecordVerification =>
    verificationRecorder({
      store,
      cipher,
      inline: (requests, ends) => verificationsWrite(SCHEMA, requests, ends),
      decide,
    });
  const request = (id: string) => ({
    data: requestVerification(
      {
        family: 'scheme',
        iban: 'DE89370400440532013000',
        name: 'Erika Mustermann',
        participant: 'P1',
      },
      { newId: () => id, now: () => new Date('2026-03-02T10:00:00.000Z') },
    ),
    metadata: { correlationId: id },
  });

  it('given requests decided at recording, when they are recorded, then each request and its end are one stream, with the ended rows and the answers from one commit, and each caller is given its end by record()', async () => {
    const { decide, seen } = decideRound();
    const record = recorderWith(decide);
    const ids = ['2b000000-0000-4000-8000-000000000001', '2b000000-0000-4000-8000-000000000002'];
    const ends = await Promise.all(ids.map((id) => record(request(id))));
    // Each caller is given its own end by record(), from the commit that stored it.
    assert.deepEqual(
      ends.map((end) => [end?.type, end?.data.verificationId]),
      ids.map((id) => ['VerificationCompleted', id]),
    );

    for (const id of ids) {
      const events = await store.readStream(verificationStreamId(id));
      assert.deepEqual(
        events.map((event) => event.type),
        ['VerificationRequested', 'VerificationCompleted'],
      );
      // Both marked: they travel on the `.decided` twin topics, which matching does not read.
      assert.deepEqual(
        events.map((event) => (event.data as { decidedAtRecording?: boolean }).decidedAtRecording),
        [true, true],
      );
      // `decide` saw the event as its consumer would: same id, same encrypted data (before the mark).
      const envelope = seen.find((candidate) => candidate.eventId === events[0]?.eventId);
      assert.deepEqual(
        { ...(envelope?.data as object), decidedAtRecording: true },
        events[0]?.data,
      );
      assert.equal(events[1]?.metadata.causationId, events[0]?.eventId);
      const row = await findVerification(sql, SCHEMA, id);
      assert.equal(row?.status, 'COMPLETED');
      assert.equal(row?.outcome, 'MTCH');
      assert.equal(row?.participant, 'P1');
    }
  });

  it('given a request the round leaves undecided, when it is recorded, then it is recorded unmarked and pending, for matching, and record() resolves with no end', async () => {
    const id = '2b000000-0000-4000-8000-000000000004';
    const { decide } = decideRound({ leaveOut: [id] });
    assert.equal(await recorderWith(decide)(request(id)), undefined);
    const events = await store.readStream(verificationStreamId(id));
    assert.deepEqual(
      events.map((event) => event.type),
      ['VerificationRequested'],
    );
    assert.equal(
      (events[0]?.data as { decidedAtRecording?: boolean }).decidedAtRecording,
      undefined,
    );
    assert.equal((await findVerification(sql, SCHEMA, id))?.status, 'PENDING');
  });

  it('given the statement fails, when a round is recorded, then nothing of the round is stored and its callers are told', async () => {
    // A verification whose stream exists already: the round's statement is refused (a unique violation).
    const taken = '2b000000-0000-4000-8000-000000000005';
    const fresh = '2b000000-0000-4000-8000-000000000003';
    await store.startStreams([
      { streamId: verificationStreamId(taken), events: [{ type: 'Taken', data: {} }] },
    ]);
    const { decide } = decideRound();
    const record = recorderWith(decide);
    const outcomes = await Promise.allSettled([record(request(taken)), record(request(fresh))]);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome.reason as { code?: unknown }).code, '23505');
    }
    assert.deepEqual(await store.readStream(verificationStreamId(fresh)), []);
    assert.equal(await findVerification(sql, SCHEMA, fresh), undefined);
  });
});
