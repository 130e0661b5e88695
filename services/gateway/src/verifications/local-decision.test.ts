import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { IntegrationEnvelope, VerificationTerminal } from '@vop/contracts';
import type { EventStore, SqlClient } from '@vop/event-store';
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
  insertVerifications,
  migrateVerificationsReadModel,
} from './read-model.js';

const completedAt = '2026-03-02T10:00:01.000Z';

/** A decider that completes every request MTCH, or fails inside the recording transaction. */
function decider(options: { failInTransaction?: boolean } = {}) {
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
        async record() {
          if (options.failInTransaction) throw new Error('decider could not record');
        },
        committed() {},
      };
    },
  };
  return { port, seen };
}

describe('single checks decided in the recording transaction (embedded)', () => {
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
      inline: (tx, requests, ends) => insertVerifications(tx, SCHEMA, requests, ends),
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

  it('given the decider fails in the transaction, when a request is recorded, then nothing is stored and the caller is told', async () => {
    const { port } = decider({ failInTransaction: true });
    const answered: VerificationTerminal[] = [];
    const id = '2b000000-0000-4000-8000-000000000003';
    await assert.rejects(recorderWith(port, answered)(request(id)), /could not record/);
    assert.deepEqual(await store.readStream(verificationStreamId(id)), []);
    assert.equal(await findVerification(sql, SCHEMA, id), undefined);
    assert.deepEqual(answered, []);
  });
});
