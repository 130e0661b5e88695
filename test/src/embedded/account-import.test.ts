import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

const NDJSON = { 'content-type': 'application/x-ndjson' };

describe('bulk account import, embedded run (real HTTPS, mutual TLS)', () => {
  let embedded: RunningEmbedded;
  before(async () => {
    embedded = await runEmbedded();
  });
  after(async () => {
    await embedded.stop();
  });

  const outcomeOf = async (name: string, iban: string) =>
    (await embedded.client.post('/vop/verify', schemeRequest(name, iban))).body.partyNameMatch as
      string | undefined;

  it('given records imported with the admin certificate, then matching sees them: a check answers MTCH, a closed account NOAP', async () => {
    const open = germanIban(900_001);
    const closed = germanIban(900_002);
    const body = [
      JSON.stringify({ iban: open, name: 'Imported Holder', alternateNames: ['Second Holder'] }),
      JSON.stringify({ iban: closed, name: 'Closed Holder', status: 'closed' }),
    ].join('\n');
    const response = await embedded.admin.request('POST', '/admin/accounts/import', {
      rawBody: body,
      headers: NDJSON,
    });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(response.body.rows, {
      read: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });
    await eventually(
      async () => ((await outcomeOf('Imported Holder', open)) === 'MTCH' ? true : undefined),
      { what: 'the imported account in matching' },
    );
    assert.equal(await outcomeOf('Second Holder', open), 'MTCH');
    assert.equal(await outcomeOf('Closed Holder', closed), 'NOAP');

    const status = await embedded.admin.get(response.body.statusUrl as string);
    assert.equal(status.status, 200);
    assert.equal(status.body.status, 'COMPLETED');
    const underV1 = await embedded.admin.get(`/v1${response.body.statusUrl as string}`);
    assert.equal(underV1.body.importId, response.body.importId);
  });

  it('given a participant certificate, then the import is refused with 403 in the flat format', async () => {
    const response = await embedded.client.request('POST', '/admin/accounts/import', {
      rawBody: JSON.stringify({ iban: germanIban(900_003), name: 'Nobody' }),
      headers: NDJSON,
    });
    assert.equal(response.status, 403);
    assert.equal(response.body.error, 'ACCESS_DENIED');
  });

  it('takes a body far larger than the JSON limit, streamed', async () => {
    const lines: string[] = [];
    for (let n = 0; n < 2_000; n++)
      lines.push(JSON.stringify({ iban: germanIban(910_000 + n), name: `Streamed Holder${n}` }));
    const rawBody = lines.join('\n');
    assert.ok(rawBody.length > 64 * 1024);
    const response = await embedded.admin.request('POST', '/admin/accounts/import', {
      rawBody,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
    });
    // NDJSON sent as CSV is read as CSV: the header is refused, which proves the body reached the route.
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'INVALID_IMPORT');
    const ok = await embedded.admin.request('POST', '/admin/accounts/import', {
      rawBody,
      headers: NDJSON,
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.rows.created, 2_000);
  });

  it('takes a CSV file of many pieces, every row numbered as in the file', async () => {
    const rows = ['iban,name'];
    for (let n = 1; n <= 3_000; n++)
      rows.push(n === 1_500 ? 'DE00BAD,Broken Row' : `${germanIban(920_000 + n)},Csv Holder${n}`);
    const rawBody = rows.join('\n');
    assert.ok(rawBody.length > 64 * 1024);
    const response = await embedded.admin.request('POST', '/admin/accounts/import', {
      rawBody,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(response.body.rows, {
      read: 3_000,
      created: 2_999,
      updated: 0,
      unchanged: 0,
      failed: 1,
    });
    assert.deepEqual(response.body.errors, [{ row: 1_500, field: 'iban', code: 'INVALID_IBAN' }]);
  });

  it('refuses an empty CSV upload: a file of ours starts with its header line', async () => {
    for (const rawBody of ['', '\n\n']) {
      const response = await embedded.admin.request('POST', '/admin/accounts/import', {
        rawBody,
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error, 'INVALID_IMPORT');
      assert.match(response.body.message, /header/);
    }
  });
});
