import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IntegrationEnvelope, VerificationRequestedData } from '@vop/contracts';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { createPersonalData, revealMatchedName, type FieldCipher } from '@vop/personal-data';
import { germanIban } from '@vop/testing';
import {
  ANSWERED_BY_PAYEE_BANK,
  completionFromAnswer,
  notHeldDecisions,
  withPayeeBankAnswers,
  type PayeeBankAnswer,
} from './payee-bank-answers.js';
import type { DecideRound } from './round-decisions.js';

const now = new Date('2026-03-02T10:00:01.000Z');
const request: VerificationRequestedData = {
  verificationId: '5b7e3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a',
  family: 'immediate',
  iban: germanIban(11, '20020020'),
  name: 'Erika Mustermann',
  participant: 'P1',
  requestedAt: '2026-03-02T10:00:00.000Z',
};
const answered = (answer: Extract<PayeeBankAnswer, { kind: 'answered' }>['answer']) =>
  ({ kind: 'answered', bic: 'SIBBDEFFXXX', participant: 'PSDXX-SIBB-000001', answer }) as const;

describe('a routed check: the completion from the payee bank’s answer', () => {
  it('given an MTCH answer, then the completion is MTCH with the bank that answered and its disclosed name', () => {
    const completion = completionFromAnswer(
      request,
      answered({ partyNameMatch: 'MTCH', matchedName: 'Erika Mustermann' }),
      now,
    );
    assert.equal(completion.outcome, 'MTCH');
    assert.equal(completion.score, 1);
    assert.equal(completion.matchedName, 'Erika Mustermann');
    assert.deepEqual(completion.reasons, [ANSWERED_BY_PAYEE_BANK]);
    assert.deepEqual(completion.routedTo, { bic: 'SIBBDEFFXXX', participant: 'PSDXX-SIBB-000001' });
  });

  it('given an NMTC answer with a name, then no name is kept', () => {
    const completion = completionFromAnswer(
      request,
      answered({ partyNameMatch: 'NMTC', matchedName: 'Max Mustermann' }),
      now,
    );
    assert.equal(completion.outcome, 'NMTC');
    assert.equal(completion.matchedName, undefined);
  });

  it('given the bank could not answer, then the completion is NOAP with the failure as its reason, never NMTC', () => {
    const completion = completionFromAnswer(
      request,
      { kind: 'failed', bic: 'SIBBDEFFXXX', reason: 'RESPONDER_TIMEOUT' },
      now,
    );
    assert.equal(completion.outcome, 'NOAP');
    assert.deepEqual(completion.reasons, ['RESPONDER_TIMEOUT']);
    assert.deepEqual(completion.routedTo, { bic: 'SIBBDEFFXXX' });
  });

  it('given an identification check, then the bank’s partyIdMatch is the idMatch (NOAP when it sent none)', () => {
    const withLei = { ...request, identification: { lei: '529900T8BM49AURSDO55' } };
    assert.equal(
      completionFromAnswer(withLei, answered({ partyNameMatch: 'MTCH', partyIdMatch: 'MTCH' }), now)
        .idMatch,
      'MTCH',
    );
    assert.equal(
      completionFromAnswer(withLei, answered({ partyNameMatch: 'MTCH' }), now).idMatch,
      'NOAP',
    );
  });
});

describe('a recorder’s round with payee banks’ answers', () => {
  let sql: SqlClient;
  let cipher: FieldCipher;
  const envelope = (data: VerificationRequestedData): IntegrationEnvelope => ({
    eventId: data.verificationId.replace(/^.{8}/, 'eeeeeeee'),
    type: 'VerificationRequested',
    version: 1,
    occurredAt: data.requestedAt,
    correlationId: data.verificationId,
    data,
  });
  const local =
    (seen: string[]): DecideRound =>
    async (envelopes) => {
      seen.push(
        ...envelopes.map((each) => (each.data as VerificationRequestedData).verificationId),
      );
      return notHeldDecisions(() => now)(envelopes);
    };

  before(async () => {
    sql = await createPgliteClient({});
    const personalData = createPersonalData(sql);
    await personalData.keys.migrate();
    cipher = personalData.cipher;
  });
  after(() => sql.close());

  it('given one answered request and one of ours, then the answered one ends with its answer, sealed, and only ours is decided locally', async () => {
    const ours = { ...request, verificationId: '1b7e3c1a-9d2f-4e8b-a1c3-7f6e5d4c3b2a' };
    const seen: string[] = [];
    const decide = withPayeeBankAnswers({
      answers: new Map([
        [
          request.verificationId,
          answered({ partyNameMatch: 'CMTC', matchedName: 'Erika Musterman' }),
        ],
      ]),
      local: local(seen),
      cipher,
      clock: () => now,
    });
    const decided = await decide([envelope(request), envelope(ours)]);
    assert.deepEqual(seen, [ours.verificationId]);
    const end = decided.get(envelope(request).eventId)?.ends[0];
    assert.equal(end?.type, 'VerificationCompleted');
    if (end?.type !== 'VerificationCompleted') return;
    assert.equal(end.data.outcome, 'CMTC');
    assert.notEqual(end.data.matchedName, 'Erika Musterman', 'the disclosed name is stored sealed');
    assert.equal((await revealMatchedName(cipher, end.data)).matchedName, 'Erika Musterman');
    assert.equal(decided.get(envelope(ours).eventId)?.ends[0]?.type, 'VerificationCompleted');
  });

  it('given a request marked for the requesting side, then a recorder’s round leaves it undecided and the consumer’s decides it', async () => {
    const marked = { ...request, routing: 'payee-bank' as const };
    const recorderRound = withPayeeBankAnswers({
      answers: new Map(),
      local: local([]),
      cipher,
      clock: () => now,
    });
    assert.equal((await recorderRound([envelope(marked)])).size, 0);
    const consumerRound = withPayeeBankAnswers({
      answers: new Map(),
      local: local([]),
      cipher,
      clock: () => now,
      leaveMarked: false,
    });
    assert.equal((await consumerRound([envelope(marked)])).size, 1);
  });

  it('given no copy of our accounts, then a request found to be ours ends NOAP as not found', async () => {
    const decided = await notHeldDecisions(() => now)([envelope(request)]);
    const end = decided.get(envelope(request).eventId)?.ends[0];
    assert.equal(end?.type === 'VerificationCompleted' && end.data.outcome, 'NOAP');
    assert.deepEqual(end?.type === 'VerificationCompleted' && end.data.reasons, [
      'ACCOUNT_NOT_FOUND',
    ]);
  });
});
