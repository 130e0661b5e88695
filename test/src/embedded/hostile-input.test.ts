import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { germanIban } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

/** What fuzzing found (issue 11, item 5): no input may reach a 500; each is a 400 naming the field. */
describe('hostile input', () => {
  let service: RunningEmbedded;
  const iban = germanIban(5150);
  before(async () => {
    service = await runEmbedded();
  });
  after(async () => service.stop());

  const schemeWithName = (name: unknown) => ({ ...schemeRequest('x', iban), party: { name } });

  it('a NUL in a name or an identifier is a 400 naming the field, in each family format', async () => {
    const scheme = await service.client.post('/vop/verify', {
      ...schemeRequest('Erika Mustermann', iban),
      party: { name: 'Erika', identification: { others: [{ scheme: 'TXID', id: 'A\u0000B' }] } },
    });
    assert.equal(scheme.status, 400, scheme.text);
    assert.equal(scheme.body.error.code, 'VOP_004');
    assert.deepEqual(scheme.body.error.details, {
      field: 'party.identification.others.0.id',
      reason: 'INVALID_CHARACTERS',
    });

    const flat = await service.client.post('/verify', { name: 'Erika\u0000', iban });
    assert.equal(flat.status, 400, flat.text);
    assert.equal(flat.body.error, 'INVALID_CHARACTERS');
    assert.equal(flat.body.field, 'name');

    const nested = await service.admin.get('/api/accounts/acc_%00');
    assert.equal(nested.status, 400, nested.text);
    assert.equal(nested.body.error.code, 'INVALID_REQUEST');
    assert.deepEqual(nested.body.error.details, { field: 'path', reason: 'INVALID_CHARACTERS' });
  });

  it('control characters, unpaired surrogates and bytes that are not UTF-8 in a name are a 400 naming it', async () => {
    for (const name of ['Erika\tMustermann', 'Erika\u0085', 'Erika\ud800']) {
      const answer = await service.client.post('/vop/verify', schemeWithName(name));
      assert.equal(answer.status, 400, `${JSON.stringify(name)}: ${answer.text}`);
      assert.equal(answer.body.error.details.field, 'party.name');
      assert.equal(answer.body.error.details.reason, 'INVALID_CHARACTERS');
    }
    const notUtf8 = Buffer.concat([
      Buffer.from(`{"iban":"${iban}","name":"Erika `),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ]);
    const answer = await service.client.request('POST', '/verify', {
      rawBody: notUtf8,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.field, 'name');
    assert.equal(answer.body.error, 'INVALID_CHARACTERS');
  });

  it('a number where a string belongs is INVALID_TYPE naming the field, not a missing field', async () => {
    const flat = await service.client.post('/verify', { name: 42, iban });
    assert.equal(flat.status, 400);
    assert.equal(flat.body.error, 'INVALID_TYPE');
    assert.equal(flat.body.field, 'name');
    const missing = await service.client.post('/verify', { iban });
    assert.equal(missing.body.error, 'MISSING_FIELD');
    const scheme = await service.client.post('/vop/verify', schemeWithName(['Erika']));
    assert.deepEqual(scheme.body.error.details, { field: 'party.name', reason: 'INVALID_TYPE' });
  });

  it('a name over 140 characters is a 400 naming the field, however long', async () => {
    for (const length of [141, 100_000]) {
      const answer = await service.client.post('/vop/verify', schemeWithName('E'.repeat(length)));
      assert.equal(answer.status, 400, `${length}: ${answer.status}`);
      assert.deepEqual(answer.body.error.details, { field: 'party.name', reason: 'TOO_LONG' });
    }
  });

  it('a body nested thousands of levels deep is a 400, answered without building it', async () => {
    const depth = 100_000;
    const deep = `{"iban":"${iban}","name":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const request = { rawBody: deep, headers: { 'content-type': 'application/json' } };
    const nested = await service.admin.request('POST', '/accounts', request);
    assert.equal(nested.status, 400, nested.text);
    assert.deepEqual(nested.body.error.details, { field: 'body', reason: 'TOO_DEEP' });
    const flat = await service.client.request('POST', '/verify', request);
    assert.equal(flat.status, 400, flat.text);
    assert.equal(flat.body.error, 'INVALID_REQUEST');
    assert.equal(flat.body.field, 'body');
    assert.match(flat.body.message, /nested deeper/);
    // Brackets inside a string are text, not depth.
    const inString = await service.admin.post('/accounts', {
      iban: germanIban(5151),
      name: `Bracket ${'['.repeat(100)} Holder`,
    });
    assert.equal(inString.status, 201, inString.text);
  });

  it('an invalid percent-encoding in the path is a 400, not a 500', async () => {
    const answer = await service.client.get('/verify/%E0%A4%A');
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.field, 'path');
  });
});
