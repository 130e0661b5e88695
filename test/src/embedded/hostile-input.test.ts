import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { germanIban, NAMES_IN_EVERY_SCRIPT, SPOOFING_CHARACTERS } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

const epcHeaders = () => ({
  'X-Request-ID': randomUUID(),
  'X-Request-Timestamp': new Date().toISOString(),
});

/** What fuzzing and probing found (issues 11, 39): no input reaches a 500; each is a 400 naming it. */
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

  it('a percent-encoding that is not UTF-8 in the path is a 400 naming it; a broken one is no 500', async () => {
    const notUtf8 = await service.client.get('/verify/%C3%28');
    assert.equal(notUtf8.status, 400, notUtf8.text);
    assert.equal(notUtf8.body.field, 'path');
    // Not a path any row covers (issue 39): refused before any route, but never a 500.
    const broken = await service.client.get('/verify/%E0%A4%A');
    assert.ok(broken.status >= 400 && broken.status < 500, `${broken.status}: ${broken.text}`);
  });

  it('every spoofing character is a 400 naming where it is: name, nested field, key, query, path', async () => {
    for (const [what, character] of SPOOFING_CHARACTERS) {
      const spoofed = `Erika${character}Mustermann`;
      const name = await service.client.post('/vop/verify', schemeWithName(spoofed));
      assert.equal(name.status, 400, `${what}: ${name.text}`);
      assert.deepEqual(name.body.error.details, {
        field: 'party.name',
        reason: 'INVALID_CHARACTERS',
      });

      const identification = { others: [{ scheme: 'TXID', id: `DE${character}1` }] };
      const nested = await service.client.post(
        '/vop/verify',
        schemeRequest('Erika', iban, { identification }),
      );
      assert.equal(nested.status, 400, `${what}: ${nested.text}`);
      assert.equal(nested.body.error.details.field, 'party.identification.others.0.id', what);

      const key = `name${character}`;
      const inKey = await service.client.post('/vop/verify', {
        ...schemeRequest('Erika', iban),
        [key]: 'x',
      });
      assert.equal(inKey.status, 400, `${what}: ${inKey.text}`);
      assert.deepEqual(inKey.body.error.details, { field: key, reason: 'INVALID_CHARACTERS' });

      const encoded = encodeURIComponent(character);
      const query = await service.client.post(
        `/vop/verify?reference=x${encoded}`,
        schemeRequest('Erika', iban),
      );
      assert.equal(query.status, 400, `${what}: ${query.text}`);
      assert.equal(query.body.error.details.field, 'reference', what);

      const path = await service.client.get(`/verify/x${encoded}y`);
      assert.equal(path.status, 400, `${what}: ${path.text}`);
      assert.equal(path.body.error, 'INVALID_CHARACTERS', what);
      assert.equal(path.body.field, 'path', what);
    }
  });

  it('every spoofing character in a name is refused on every path a name arrives by, and never stored', async () => {
    for (const [what, character] of SPOOFING_CHARACTERS) {
      const spoofed = `Erika${character}Mustermann`;
      const flat = await service.client.post('/verify', { name: spoofed, iban });
      assert.equal(flat.status, 400, `${what}: ${flat.text}`);
      assert.equal(flat.body.error, 'INVALID_CHARACTERS', what);
      assert.equal(flat.body.field, 'name', what);

      const epc = await service.client.post(
        '/vop/v1/payee-verifications',
        schemeRequest(spoofed, iban),
        { headers: epcHeaders() },
      );
      assert.equal(epc.status, 400, `${what}: ${epc.text}`);
      assert.equal(epc.body.code, 'FORMAT_ERROR', what);
      assert.match(epc.body.detail, /party\.name \(INVALID_CHARACTERS\)/, what);

      const stored = await service.admin.post('/accounts', {
        iban: germanIban(5160),
        name: spoofed,
      });
      assert.equal(stored.status, 400, `${what}: ${stored.text}`);
      assert.deepEqual(stored.body.error.details, { field: 'name', reason: 'INVALID_CHARACTERS' });

      const batch = await service.client.post('/api/v1/batch', {
        batchId: 'spoof-1',
        verifications: [{ id: 'e1', iban, name: spoofed }],
      });
      assert.equal(batch.status, 400, `${what}: ${batch.text}`);
      assert.equal(batch.body.error, 'INVALID_CHARACTERS', what);
      assert.equal(batch.body.field, 'verifications[0].name', what);
    }
  });

  it('a lone surrogate or U+FFFD in a batch entry is refused, in JSON and in NDJSON', async () => {
    for (const name of ['Erika\ud800', 'Erika\uFFFD']) {
      const entry = { id: 'e1', iban, name };
      const json = await service.client.post('/api/v1/batch', {
        batchId: 'lone-1',
        verifications: [entry],
      });
      assert.equal(json.status, 400, `${JSON.stringify(name)}: ${json.text}`);
      assert.equal(json.body.error, 'INVALID_CHARACTERS');
      const ndjson = await service.client.request('POST', '/api/v1/batch?batchId=lone-2', {
        rawBody: JSON.stringify(entry),
        headers: { 'content-type': 'application/x-ndjson' },
      });
      assert.equal(ndjson.status, 400, `${JSON.stringify(name)}: ${ndjson.text}`);
      assert.equal(ndjson.body.error, 'INVALID_CHARACTERS');
    }
  });

  it('a zero-width joiner or non-joiner is refused outside a word of a script that needs it', async () => {
    for (const name of [
      '\u200Cمی', // at the start
      'می\u200C', // at the end
      'می\u200C\u200Cخواهم', // doubled
      'क्\u200D\u200Dष',
      'Erika\u200C', // beside Latin
      'می\u200Cक', // between two scripts
      '山\u200D田', // in a script that has no use for it
    ]) {
      const answer = await service.client.post('/vop/verify', schemeWithName(name));
      assert.equal(answer.status, 400, `${JSON.stringify(name)}: ${answer.text}`);
      assert.deepEqual(answer.body.error.details, {
        field: 'party.name',
        reason: 'INVALID_CHARACTERS',
      });
    }
  });

  it('names in every script the service takes are stored and verified', async () => {
    for (const [index, name] of NAMES_IN_EVERY_SCRIPT.entries()) {
      const stored = await service.admin.post('/accounts', {
        iban: germanIban(5170 + index),
        name,
      });
      assert.equal(stored.status, 201, `${name}: ${stored.text}`);
      const verified = await service.client.post(
        '/vop/verify',
        schemeRequest(name, germanIban(5170 + index)),
      );
      assert.equal(verified.status, 200, `${name}: ${verified.text}`);
    }
  });
});

/**
 * A key twice in one JSON object (issue 39): a proxy that reads the first value and a service that
 * acts on the last would understand the request differently; RFC 8259 leaves it undefined. Refused.
 */
describe('duplicate keys in a JSON body', () => {
  let service: RunningEmbedded;
  const iban = germanIban(5190);
  const agents =
    '"partyAgent":{"financialInstitutionId":{"bicfi":"COBADEFFXXX"}},' +
    '"requestingAgent":{"financialInstitutionId":{"bicfi":"DEUTDEFFXXX"}}';
  const account = `"partyAccount":{"iban":"${iban}"}`;
  /** A scheme request, raw, with `party` as given. */
  const withParty = (party: string) => `{"party":{${party}},${account},${agents}}`;
  const others = (...entries: string[]) => `"identification":{"others":[${entries.join(',')}]}`;
  before(async () => {
    service = await runEmbedded();
  });
  after(async () => service.stop());

  const scheme = (rawBody: string) =>
    service.client.request('POST', '/vop/verify', {
      rawBody,
      headers: { 'content-type': 'application/json' },
    });

  it('are a 400 naming the key, at the top, nested, escaped and in an array of objects', async () => {
    const cases: [string, string, string][] = [
      [
        'at the top',
        `{"party":{"name":"Erika"},${account},${agents},"party":{"name":"Eve"}}`,
        'party',
      ],
      ['nested', withParty('"name":"Erika","name":"Eve"'), 'party.name'],
      ['escaped', withParty('"name":"Erika","\\u006eame":"Eve"'), 'party.name'],
      [
        'in an array of objects',
        withParty(`"name":"Erika",${others('{"scheme":"TXID","id":"1","id":"2"}')}`),
        'party.identification.others.0.id',
      ],
      [
        'the IBAN, where a proxy and the service would check different accounts',
        `{"party":{"name":"Erika"},"partyAccount":{"iban":"${iban}","iban":"${germanIban(5191)}"},${agents}}`,
        'partyAccount.iban',
      ],
    ];
    for (const [what, rawBody, field] of cases) {
      const answer = await scheme(rawBody);
      assert.equal(answer.status, 400, `${what}: ${answer.text}`);
      assert.equal(answer.body.error.code, 'VOP_004', what);
      assert.deepEqual(answer.body.error.details, { field, reason: 'DUPLICATE_KEY' }, what);
    }
  });

  it('are refused in every error format', async () => {
    const flat = await service.client.request('POST', '/verify', {
      rawBody: `{"name":"Erika","iban":"${iban}","name":"Eve"}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(flat.status, 400, flat.text);
    assert.equal(flat.body.error, 'INVALID_REQUEST');
    assert.equal(flat.body.field, 'name');

    const nested = await service.admin.request('POST', '/accounts', {
      rawBody: `{"iban":"${germanIban(5192)}","name":"Erika","name":"Eve"}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(nested.status, 400, nested.text);
    assert.deepEqual(nested.body.error.details, { field: 'name', reason: 'DUPLICATE_KEY' });

    const epc = await service.client.request('POST', '/vop/v1/payee-verifications', {
      rawBody: withParty('"name":"Erika","name":"Eve"'),
      headers: { 'content-type': 'application/json', ...epcHeaders() },
    });
    assert.equal(epc.status, 400, epc.text);
    assert.equal(epc.body.code, 'FORMAT_ERROR');
    assert.match(epc.body.detail, /party\.name \(DUPLICATE_KEY\)/);
  });

  it("the same key in two different objects is no duplicate: a bank's request passes", async () => {
    // financialInstitutionId and bicfi in both agents; scheme and id in each identification.
    const identification = others('{"scheme":"TXID","id":"1"}', '{"scheme":"CUST","id":"2"}');
    const answer = await scheme(withParty(`"name":"Erika",${identification}`));
    assert.equal(answer.status, 200, answer.text);
  });

  it('a body in another encoding than UTF-8 is a 415: the duplicate check reads UTF-8', async () => {
    const body = Buffer.from(withParty('"name":"Erika","name":"Eve"'), 'utf16le');
    const answer = await service.client.request('POST', '/vop/verify', {
      rawBody: body,
      headers: { 'content-type': 'application/json; charset=utf-16le' },
    });
    assert.equal(answer.status, 415, answer.text);
  });
});
