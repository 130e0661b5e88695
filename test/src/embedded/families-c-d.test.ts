import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { passesModulusCheck } from '@vop/contracts';
import { eventually, germanIban } from '@vop/testing';
import { runEmbedded, type RunningEmbedded } from './fixtures.js';

const SORT_CODE = '089999';

/** Account numbers that pass VocaLink's modulus check for SORT_CODE, found by search (never hard-coded answers). */
function validAccountNumbers(count: number, from = 66_374_900): string[] {
  const found: string[] = [];
  for (let candidate = from; found.length < count; candidate++) {
    const accountNumber = String(candidate).padStart(8, '0');
    if (passesModulusCheck(SORT_CODE, accountNumber)) found.push(accountNumber);
  }
  return found;
}

describe('family C: immediate verification', () => {
  let service: RunningEmbedded;
  const iban = germanIban(6100);
  before(async () => {
    service = await runEmbedded();
    const created = await service.admin.post('/accounts', { iban, name: 'Erika Mustermann' });
    assert.equal(created.status, 201);
  });
  after(async () => service.stop());

  it('POST /api/verify answers at once in the production form, readable by id at GET /verify/{id}', async () => {
    const answer = await eventually(async () => {
      const response = await service.client.post('/api/verify', { iban, name: 'Erika Mustermann' });
      return response.body.match === true ? response : undefined;
    });
    assert.equal(answer.status, 200);
    assert.match(answer.body.verification_id, /^vrf_[0-9a-f-]{36}$/);
    assert.ok(answer.body.confidence_score >= 0.9 && answer.body.confidence_score <= 1);
    assert.ok(!Number.isNaN(Date.parse(answer.body.verified_at)));
    assert.equal(answer.body.suggested_name, undefined);
    const byId = await service.client.get(`/verify/${answer.body.verification_id}`);
    assert.equal(byId.status, 200);
    assert.equal(byId.body.name_match_code, 'MATCH');
  });

  it('a close match answers match:false with the suggested name; an unknown account with its reason', async () => {
    const close = await service.client.post('/api/verify', { iban, name: 'Erika Musterman' });
    assert.equal(close.status, 200);
    assert.equal(close.body.match, false);
    assert.equal(close.body.suggested_name, 'Erika Mustermann');
    const unknown = await service.client.post('/api/verify', {
      iban: germanIban(6199),
      name: 'Nobody',
    });
    assert.equal(unknown.body.match, false);
    assert.equal(unknown.body.reason, 'ACCOUNT_NOT_FOUND_OR_CLOSED');
    assert.equal(unknown.body.suggested_name, undefined);
  });

  it('with Prefer: respond-async it answers 201 with the receipt of family B', async () => {
    const receipt = await service.client.post(
      '/api/verify',
      { iban, name: 'Erika Mustermann' },
      { headers: { prefer: 'respond-async' } },
    );
    assert.equal(receipt.status, 201);
    assert.equal(receipt.headers['preference-applied'], 'respond-async');
    const result = await eventually(async () => {
      const response = await service.client.get(`/api/verify/${receipt.body.request_id}`);
      return response.status === 200 ? response : undefined;
    });
    assert.equal(result.body.name_match_code, 'MATCH');
  });

  it('POST /api/v1/verify answers result and confidence words; an invalid IBAN is INVALID_IBAN naming the field', async () => {
    const match = await service.client.post('/api/v1/verify', { iban, name: 'Erika Mustermann' });
    assert.equal(match.status, 200);
    assert.deepEqual(match.body, { result: 'MATCH', confidence: 'HIGH' });
    const none = await service.client.post('/api/v1/verify', {
      iban,
      name: 'Otto Normalverbraucher',
    });
    assert.equal(none.body.result, 'NO_MATCH');
    const unknown = await service.client.post('/api/v1/verify', {
      iban: germanIban(6198),
      name: 'Nobody',
    });
    assert.equal(unknown.body.result, 'ERROR');
    const invalid = await service.client.post('/api/v1/verify', {
      iban: 'DE00123',
      name: 'Erika Mustermann',
    });
    assert.equal(invalid.status, 400);
    assert.deepEqual(
      { error: invalid.body.error, field: invalid.body.field },
      { error: 'INVALID_IBAN', field: 'iban' },
    );
  });
});

describe('family D: account number and sort code', () => {
  let service: RunningEmbedded;
  const [personal, business, closed, unknown] = validAccountNumbers(4);
  before(async () => {
    service = await runEmbedded();
    const accounts = [
      { n: personal, name: 'James Smith', holderType: 'person', status: 'active', i: 6201 },
      {
        n: business,
        name: 'Acme Trading Ltd',
        holderType: 'organisation',
        status: 'active',
        i: 6202,
      },
      { n: closed, name: 'Mary Jones', holderType: 'person', status: 'closed', i: 6203 },
    ];
    for (const account of accounts) {
      const created = await service.admin.post('/accounts', {
        iban: germanIban(account.i),
        name: account.name,
        holderType: account.holderType,
        status: account.status,
        domesticAccount: { sortCode: '08-99-99', accountNumber: account.n },
      });
      assert.equal(created.status, 201, created.text);
    }
  });
  after(async () => service.stop());

  const ask = (accountNumber: string | undefined, accountName: string, extra = {}) =>
    service.client.post('/verify', { accountNumber, sortCode: '08-99-99', accountName, ...extra });

  it('a full match answers FULL, an integer confidence and ACTIVE, with no reason code', async () => {
    const answer = await eventually(async () => {
      const response = await ask(personal, 'James Smith');
      return response.body.match === 'FULL' ? response : undefined;
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'ACTIVE');
    assert.ok(Number.isInteger(answer.body.confidence) && answer.body.confidence >= 90);
    assert.equal(answer.body.suggestedName, undefined);
    assert.equal(answer.body.reasonCode, undefined);
    const byId = await service.client.get(`/verify/${answer.body.verificationId}`);
    assert.equal(byId.body.name_match_code, 'MATCH');
  });

  it('a close match answers PARTIAL with the suggested name (MBAM); a miss NONE (ANNM)', async () => {
    const close = await ask(personal, 'James Smyth');
    assert.equal(close.body.match, 'PARTIAL');
    assert.equal(close.body.suggestedName, 'James Smith');
    assert.equal(close.body.reasonCode, 'MBAM');
    const none = await ask(personal, 'Robert Brown');
    assert.equal(none.body.match, 'NONE');
    assert.equal(none.body.reasonCode, 'ANNM');
    assert.equal(none.body.suggestedName, undefined);
  });

  it('the account type the payer names decides BANM and PANM', async () => {
    const banm = await ask(business, 'Acme Trading Ltd', { accountType: 'personal' });
    assert.equal(banm.body.match, 'FULL');
    assert.equal(banm.body.reasonCode, 'BANM');
    const panm = await ask(personal, 'James Smith', { accountType: 'business' });
    assert.equal(panm.body.reasonCode, 'PANM');
    const same = await ask(business, 'Acme Trading Ltd', { accountType: 'business' });
    assert.equal(same.body.reasonCode, undefined);
  });

  it('a closed account answers NONE, CLOSED, AC01; an unknown one NONE, NOT_FOUND, AC01', async () => {
    const closedAnswer = await ask(closed, 'Mary Jones');
    assert.deepEqual(
      [closedAnswer.body.match, closedAnswer.body.status, closedAnswer.body.reasonCode],
      ['NONE', 'CLOSED', 'AC01'],
    );
    const unknownAnswer = await ask(unknown, 'Anyone');
    assert.equal(unknownAnswer.status, 200);
    assert.deepEqual(
      [unknownAnswer.body.match, unknownAnswer.body.status, unknownAnswer.body.reasonCode],
      ['NONE', 'NOT_FOUND', 'AC01'],
    );
    const byId = await service.client.get(`/verify/${unknownAnswer.body.verificationId}`);
    assert.equal(byId.status, 200);
  });

  it('format and modulus checks name the field; a second live account with the same numbers is 409', async () => {
    const badSortCode = await service.client.post('/verify', {
      accountNumber: personal,
      sortCode: '12-34',
      accountName: 'James Smith',
    });
    assert.equal(badSortCode.status, 400);
    assert.deepEqual(
      [badSortCode.body.error, badSortCode.body.field],
      ['INVALID_SORT_CODE', 'sortCode'],
    );
    const badLength = await ask('1234', 'James Smith');
    assert.deepEqual(
      [badLength.body.error, badLength.body.field],
      ['INVALID_ACCOUNT_NUMBER', 'accountNumber'],
    );
    let failing = Number(personal);
    while (passesModulusCheck(SORT_CODE, String(failing).padStart(8, '0'))) failing++;
    const failsModulus = await ask(String(failing).padStart(8, '0'), 'James Smith');
    assert.deepEqual(
      [failsModulus.status, failsModulus.body.error, failsModulus.body.field],
      [400, 'INVALID_ACCOUNT_NUMBER', 'accountNumber'],
    );
    const missing = await ask(personal, 'James Smith', { accountName: undefined });
    assert.deepEqual([missing.body.error, missing.body.field], ['MISSING_FIELD', 'accountName']);
    const duplicate = await service.admin.post('/accounts', {
      iban: germanIban(6209),
      name: 'Someone Else',
      domesticAccount: { sortCode: SORT_CODE, accountNumber: personal },
    });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.error.code, 'ACCOUNT_NUMBER_ALREADY_REGISTERED');
  });
});
