import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IntegrationEnvelope } from '@vop/contracts';
import { createPgliteClient, EventStore, type SqlClient } from '@vop/event-store';
import { createNameMatcher, type NameMatcher } from '@vop/name-matching';
import {
  accountEventProtector,
  createPersonalData,
  FieldCipher,
  protectTypedName,
  revealMatchedName,
} from '@vop/personal-data';
import { germanIban } from '@vop/testing';
import { verificationStreamId } from '../stream-id.js';
import { migrateAccountProjection, projectAccountEvent } from './account-projection.js';
import { roundDecisions } from './round-decisions.js';

const SCHEMA = 'matching';
const IBAN = germanIban(7);
const decidedAt = new Date('2026-03-02T10:00:01.000Z');

/** The deployed matcher, except that it cannot decide names containing "Undecidable". */
const matcher: NameMatcher = {
  match(typedName, holder) {
    if (typedName.includes('Undecidable')) throw new Error('cannot decide');
    return createNameMatcher().match(typedName, holder);
  },
};

function requestEnvelope(verificationId: string, name: string, iban = IBAN): IntegrationEnvelope {
  return {
    eventId: verificationId.replace(/^.{8}/, 'eeeeeeee'),
    type: 'VerificationRequested',
    version: 1,
    occurredAt: '2026-03-02T10:00:00.000Z',
    correlationId: verificationId,
    data: {
      verificationId,
      family: 'request-result',
      iban,
      name,
      participant: 'P1',
      requestedAt: '2026-03-02T10:00:00.000Z',
    },
  };
}

describe('matching: deciding delivered verification requests', () => {
  let sql: SqlClient;
  let store: EventStore;
  const undecided: string[] = [];

  before(async () => {
    sql = await createPgliteClient({});
    store = new EventStore(sql, { schema: SCHEMA });
    await store.migrate();
    await migrateAccountProjection(sql, SCHEMA);
    await createPersonalData(sql).keys.migrate();
    const account = {
      accountId: '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01',
      iban: IBAN,
      name: 'Erika Mustermann',
      holderType: 'person' as const,
      alternateNames: [],
      status: 'active' as const,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await sql.transaction((tx) =>
      projectAccountEvent(tx, SCHEMA, { type: 'AccountOpened', data: account }, 1),
    );
  });
  after(() => sql.close());

  it('given a request matching cannot decide beside one it can, when decided, then the first fails with ERROR and the other completes', async () => {
    const decisions = roundDecisions({
      store,
      matcher,
      cipher: createPersonalData(sql).cipher,
      clock: () => decidedAt,
      onUndecidable: (verificationId) => undecided.push(verificationId),
    });
    const failing = '1a000000-0000-4000-8000-000000000001';
    const matching = '1a000000-0000-4000-8000-000000000002';
    const envelopes = [
      requestEnvelope(failing, 'Undecidable Payee'),
      requestEnvelope(matching, 'Erika Mustermann'),
    ];
    const decided = await decisions.decide(envelopes);
    await decisions.recordDelivered(decided, envelopes);

    const [failed] = await store.readStream(verificationStreamId(failing));
    assert.equal(failed?.type, 'VerificationFailed');
    assert.deepEqual(failed?.data, {
      verificationId: failing,
      family: 'request-result',
      reason: 'ERROR',
      participant: 'P1',
      failedAt: decidedAt.toISOString(),
    });
    assert.equal(failed?.metadata.correlationId, failing);
    const [completed] = await store.readStream(verificationStreamId(matching));
    assert.equal(completed?.type, 'VerificationCompleted');
    assert.equal((completed?.data as { outcome: string }).outcome, 'MTCH');
    assert.deepEqual(undecided, [failing]);

    // Delivered again beside a new request that comes twice in the same delivery: the ends recorded
    // before stay alone, and the new request gets one end.
    const added = '1a000000-0000-4000-8000-000000000003';
    const again = [
      ...envelopes,
      requestEnvelope(added, 'Erika Mustermann'),
      requestEnvelope(added, 'Erika Mustermann'),
    ];
    await decisions.recordDelivered(await decisions.decide(again), again);
    assert.equal((await store.readStream(verificationStreamId(failing))).length, 1);
    assert.equal((await store.readStream(verificationStreamId(matching))).length, 1);
    assert.deepEqual(
      (await store.readStream(verificationStreamId(added))).map((event) => event.type),
      ['VerificationCompleted'],
    );
  });

  it('given the typed names in plain beside their encrypted requests (the recorder has them), when decided, then only the holder names are decrypted', async () => {
    /** A cipher that remembers what it was asked to decrypt. */
    class CountingCipher extends FieldCipher {
      readonly decrypted: string[] = [];
      override decryptMany(values: readonly string[]) {
        this.decrypted.push(...values);
        return super.decryptMany(values);
      }
    }
    const cipher = new CountingCipher(createPersonalData(sql).keys);
    const decisions = roundDecisions({ store, matcher, cipher, clock: () => decidedAt });
    const id = '1a000000-0000-4000-8000-000000000004';
    const plain = requestEnvelope(id, 'Erika Mustermann');
    const data = await protectTypedName(
      cipher,
      plain.data as Parameters<typeof protectTypedName>[1],
    );
    const encrypted = { ...plain, data };
    assert.ok(cipher.isEncrypted(data.name));

    const given = await decisions.decide([encrypted], ['Erika Mustermann']);
    assert.equal(
      (given.get(encrypted.eventId)?.ends[0]?.data as { outcome: string }).outcome,
      'MTCH',
    );
    assert.ok(!cipher.decrypted.includes(data.name!), 'the typed name is not decrypted again');
    assert.ok(cipher.decrypted.length > 0, "the holder's names are");

    // Without them, the typed name is decrypted, to the same outcome.
    const decrypted = await decisions.decide([encrypted]);
    assert.ok(cipher.decrypted.includes(data.name!));
    assert.equal(
      (decrypted.get(encrypted.eventId)?.ends[0]?.data as { outcome: string }).outcome,
      'MTCH',
    );
  });

  it("given an account whose names the projection holds sealed, when a match is decided by transliteration, then the disclosed name is the projection's sealed value, opened for the answer without a new encryption", async () => {
    /** A cipher that counts what it seals. */
    class CountingCipher extends FieldCipher {
      sealed = 0;
      override encrypt(...args: Parameters<FieldCipher['encrypt']>) {
        this.sealed++;
        return super.encrypt(...args);
      }
    }
    const keys = createPersonalData(sql).keys;
    const cipher = new CountingCipher(keys);
    const iban = germanIban(8);
    const opened = {
      type: 'AccountOpened' as const,
      data: {
        accountId: '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a02',
        iban,
        name: 'Jürgen Groß',
        holderType: 'person' as const,
        alternateNames: ['Jürgen Gross-Weber'],
        status: 'active' as const,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    };
    const stored = await sql.transaction(async (tx) => {
      const protectedEvent = await accountEventProtector(cipher)(opened, tx);
      await projectAccountEvent(tx, SCHEMA, protectedEvent, 1);
      return protectedEvent.data as typeof opened.data;
    });
    const decisions = roundDecisions({ store, matcher, cipher, clock: () => decidedAt });
    const id = '1a000000-0000-4000-8000-000000000005';
    const envelope = requestEnvelope(id, 'Jurgen Gross', iban);
    const sealedBefore = cipher.sealed;

    const decided = await decisions.decide([envelope]);
    const end = decided.get(envelope.eventId)?.ends[0];
    assert.equal(end?.type, 'VerificationCompleted');
    const completed = end.data as Parameters<typeof revealMatchedName>[1];
    assert.equal(completed.outcome, 'MTCH');
    assert.equal(completed.matchedName, stored.name, "the projection's sealed value");
    assert.equal(cipher.sealed, sealedBefore, 'nothing was sealed');
    assert.equal((await revealMatchedName(cipher, completed)).matchedName, 'Jürgen Groß');

    // Erased: the disclosed value opens to nothing, as a newly sealed one would.
    await keys.destroy(`account-${opened.data.accountId}`);
    assert.equal((await revealMatchedName(cipher, completed)).matchedName, undefined);
  });
});
