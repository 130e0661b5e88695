import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { IntegrationEnvelope, VerificationTerminal } from '@vop/contracts';
import type { EventStore, SqlClient, WriteStatement } from '@vop/event-store';
import {
  requestVerification,
  verificationRecorder,
  verificationStreamId,
  type LocalDecider,
  type RecordVerification,
} from '@vop/verifications';
import { freshGatewayStore, SPEC_SCHEMA as SCHEMA } from '../spec/in-process-edge.js';
import {
  findVerification,
  migrateVerificationsReadModel,
  verificationsWrite,
} from './read-model.js';

const completedAt = '2026-03-02T10:00:01.000Z';

/** A decider that completes every request MTCH; `writes` are what it stores with the requests. */
function decider(options: { writes?: WriteStatement[] } = {}) {
  const seen: IntegrationEnvelope[] = [];
  const port: LocalDecider = {
    async prepare(envelopes) {
      seen.push(...envelopes);
      const ends: VerificationTerminal[] = envelopes.map((envelope) => {
        const { verificationId, family } = envelope.data as {
          verificationId: string;
          family: 'scheme';
        };
        return {
          type: 'VerificationCompleted',
          data: { verificationId, family, outcome: 'MTCH', score: 1, reasons: [], completedAt },
        };
      });
      return {
        ends,
        writes: options.writes ?? [],
        committed() {},
      };
    },
  };
  return { port, seen };
}

describe('single checks decided in the statement that records them (embedded)', () => {
  let sql: SqlClient;
  let store: EventStore;
  let cipher: Awaited<ReturnType<typeof freshGatewayStore>>['cipher'];

  before(async () => {
    ({ sql, store, cipher } = await freshGatewayStore());
    await migrateVerificationsReadModel(sql, SCHEMA);
  });

  const recorderWith = (port: LocalDecider, answered: VerificationTerminal[]): RecordVerification =>
    verificationRecorder({
      store,
      cipher,
      inline: (requests, ends) => verificationsWrite(SCHEMA, requests, ends),
      decider: port,
      onEnds: (ends) => answered.push(...ends),
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

  it('given a local decider, when requests are recorded, then their events, their ended rows and the answers come from one commit', async () => {
    const { port, seen } = decider();
    const answered: VerificationTerminal[] = [];
    const record = recorderWith(port, answered);
    const ids = ['2b000000-0000-4000-8000-000000000001', '2b000000-0000-4000-8000-000000000002'];
    await Promise.all(ids.map((id) => record(request(id))));

    for (const id of ids) {
      const events = await store.readStream(verificationStreamId(id));
      assert.deepEqual(
        events.map((event) => event.type),
        ['VerificationRequested'],
      );
      // The decider saw the event as its consumer would: same id, same encrypted data.
      const envelope = seen.find((candidate) => candidate.eventId === events[0]?.eventId);
      assert.deepEqual(envelope?.data, events[0]?.data);
      const row = await findVerification(sql, SCHEMA, id);
      assert.equal(row?.status, 'COMPLETED');
      assert.equal(row?.outcome, 'MTCH');
      assert.equal(row?.participant, 'P1');
    }
    assert.deepEqual(answered.map((end) => end.data.verificationId).sort(), ids);
  });

  it("given the decider's write fails, when a request is recorded, then nothing is stored and the caller is told", async () => {
    // A completion stream that exists already: the decider's write is refused (a unique violation).
    const taken = { streamId: 'completion-taken', events: [{ type: 'Taken', data: {} }] };
    await store.startStreams([taken]);
    const { port } = decider({ writes: [store.startStreamsWrite([taken])] });
    const answered: VerificationTerminal[] = [];
    const id = '2b000000-0000-4000-8000-000000000003';
    await assert.rejects(
      recorderWith(port, answered)(request(id)),
      (error: unknown) => (error as { code?: unknown }).code === '23505',
    );
    assert.deepEqual(await store.readStream(verificationStreamId(id)), []);
    assert.equal(await findVerification(sql, SCHEMA, id), undefined);
    assert.deepEqual(answered, []);
  });
});
