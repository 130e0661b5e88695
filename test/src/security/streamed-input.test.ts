/**
 * Streamed bodies and CSV output, tried as an attacker would (issue 39), on the embedded service over
 * mutual TLS. Batch uploads and the bulk account import read their bodies themselves, past the edge's
 * JSON checks, so each attack is tried through them:
 *
 * - a 20 MB NDJSON line, 20 MB with no line feed at all, a 20 MB CSV record, a 20 MB JSON entry: 400
 *   naming the line (the entry for JSON), decided when the bound is passed; a line at the bound passes;
 * - a lone surrogate, as a JSON escape and as UTF-8 bytes, in a batch entry and in an import record:
 *   refused naming the field (the whole batch; the import's row);
 * - results downloaded as CSV whose cells begin with =, +, -, @ (the entry ids are the caller's, the
 *   matched name the bank's record): each cell neutralised with a leading ' and quoted; a tab or a
 *   carriage return cannot reach a result (refused at upload).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_BATCH_ENTRY_BYTES, MAX_IMPORT_RECORD_BYTES } from '@vop/contracts';
import { eventually, germanIban } from '@vop/testing';
import {
  accountsKnownToDeciders,
  runEmbedded,
  type RunningEmbedded,
} from '../embedded/fixtures.js';

const TWENTY_MB = 20 * 1024 * 1024;
const NDJSON = { 'content-type': 'application/x-ndjson' };
const CSV = { 'content-type': 'text/csv' };
const LONE_SURROGATE_BYTES = Buffer.from([0xed, 0xa0, 0x80]);
const holder = { iban: germanIban(850_001), name: 'Erika Mustermann' };
/** A holder name as written by whoever can change the bank's account records (issue 39 renamed one). */
const formulaHolder = { iban: germanIban(850_002), name: '=Max Mustermann' };

describe('streamed bodies and CSV output, tried as an attacker would', () => {
  let running: RunningEmbedded;
  before(async () => {
    running = await runEmbedded();
    for (const account of [holder, formulaHolder])
      assert.equal((await running.admin.post('/accounts', account)).status, 201);
    await accountsKnownToDeciders(running, [holder.iban, formulaHolder.iban]);
  });
  after(async () => running?.stop());

  const entry = (id: string, name = holder.name) => JSON.stringify({ id, iban: holder.iban, name });
  const upload = (query: string, rawBody: string | Buffer, headers = NDJSON) =>
    running.client.request('POST', `/api/v1/batch${query}`, { rawBody, headers });
  const flat = (
    response: { status: number; body: Record<string, unknown>; text: string },
    error: string,
    field: string,
    message: RegExp,
  ) => {
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.error, error);
    assert.equal(response.body.field, field);
    assert.match(String(response.body.message), message);
  };

  describe('batch uploads: a line longer than an entry may be', () => {
    it('a 20 MB NDJSON line is refused naming its line', async () => {
      const body = `${entry('e-1')}\n{"id":"e-2","iban":"${holder.iban}","name":"${'A'.repeat(TWENTY_MB)}"}`;
      flat(
        await upload('?batchId=long-1', body),
        'INVALID_REQUEST',
        'verifications[1]',
        /^Line 2 is longer/,
      );
    });

    it('20 MB with no line feed at all is refused as line 1', async () => {
      flat(
        await upload('?batchId=long-2', '{'.repeat(TWENTY_MB)),
        'INVALID_REQUEST',
        'verifications[0]',
        /^Line 1 is longer/,
      );
    });

    it('a 20 MB CSV record, or 20 MB of separators, is refused naming its line', async () => {
      const quoted = `id,iban,name\ne-1,${holder.iban},"${'A'.repeat(TWENTY_MB)}"\n`;
      flat(
        await upload('?batchId=long-3', quoted, CSV),
        'INVALID_REQUEST',
        'body',
        /^The record on line 2 is longer/,
      );
      const commas = `id,iban,name\n${','.repeat(TWENTY_MB)}`;
      flat(
        await upload('?batchId=long-4', commas, CSV),
        'INVALID_REQUEST',
        'body',
        /^The record on line 2 is longer/,
      );
    });

    it('a 20 MB entry in a JSON body is refused naming the entry', async () => {
      const body = `{"batchId":"long-5","verifications":[${entry('e-1')},{"id":"e-2","name":"${'A'.repeat(TWENTY_MB)}"}]}`;
      flat(
        await upload('', body, { 'content-type': 'application/json' }),
        'INVALID_REQUEST',
        'verifications[1]',
        /^verifications\[1\] \(line 1\) is longer/,
      );
    });

    it('a line of exactly the bound is accepted', async () => {
      const line = `${entry('e-1').slice(0, -1)}${' '.repeat(MAX_BATCH_ENTRY_BYTES - entry('e-1').length)}}`;
      assert.equal(Buffer.byteLength(line), MAX_BATCH_ENTRY_BYTES);
      const response = await upload('?batchId=at-bound', `${line}\n${entry('e-2')}\n`);
      assert.equal(response.status, 202, response.text);
    });
  });

  describe('batch uploads: characters the edge refuses in JSON bodies', () => {
    it('a lone surrogate as a JSON escape in an NDJSON entry refuses the batch, naming the field', async () => {
      const body = `${entry('e-1')}\n{"id":"e-2","iban":"${holder.iban}","name":"Eri\\ud800ka"}`;
      flat(
        await upload('?batchId=chars-1', body),
        'INVALID_CHARACTERS',
        'verifications[1].name',
        /entry "e-2"/,
      );
    });

    it('a lone surrogate as UTF-8 bytes (read as U+FFFD), in NDJSON, CSV and JSON', async () => {
      const ndjson = Buffer.concat([
        Buffer.from(`{"id":"e-1","iban":"${holder.iban}","name":"Eri`),
        LONE_SURROGATE_BYTES,
        Buffer.from('ka"}\n'),
      ]);
      flat(
        await upload('?batchId=chars-2', ndjson),
        'INVALID_CHARACTERS',
        'verifications[0].name',
        /entry "e-1"/,
      );
      const csv = Buffer.concat([
        Buffer.from(`id,iban,name\ne-1,${holder.iban},Eri`),
        LONE_SURROGATE_BYTES,
        Buffer.from('ka\n'),
      ]);
      flat(
        await upload('?batchId=chars-3', csv, CSV),
        'INVALID_CHARACTERS',
        'verifications[0].name',
        /entry "e-1"/,
      );
      const json = Buffer.concat([
        Buffer.from(
          `{"batchId":"chars-4","verifications":[{"id":"e-1","iban":"${holder.iban}","name":"Eri`,
        ),
        LONE_SURROGATE_BYTES,
        Buffer.from('ka"}]}'),
      ]);
      flat(
        await upload('', json, { 'content-type': 'application/json' }),
        'INVALID_CHARACTERS',
        'verifications[0].name',
        /entry "e-1"/,
      );
    });

    it('form 1 (POST /verify/batch): a lone surrogate in an account name', async () => {
      const body =
        '{"accounts":[{"accountNumber":"12345678","sortCode":"12-34-56","accountName":"J\\udc00"}]}';
      const response = await running.client.request('POST', '/verify/batch', {
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });
      flat(response, 'INVALID_CHARACTERS', 'accounts[0].accountName', /entry 0/);
    });
  });

  describe('batch uploads: a key twice in one object (the edge refuses it in JSON bodies)', () => {
    it('in an NDJSON entry: the batch is refused naming the entry and the key', async () => {
      const body = `${entry('e-1')}\n{"id":"e-2","iban":"${holder.iban}","name":"Erika Mustermann","name":"Mallory"}`;
      flat(
        await upload('?batchId=dup-1', body),
        'INVALID_REQUEST',
        'verifications[1].name',
        /^Duplicate key in line 2: verifications\[1\]\.name$/,
      );
    });

    it('in a JSON body, escaped or not, in an entry or at the top', async () => {
      const send = (raw: string) => upload('', raw, { 'content-type': 'application/json' });
      flat(
        await send(
          `{"batchId":"dup-2","verifications":[${entry('e-1')},{"id":"e-2","iban":"${holder.iban}","name":"A","n\u0061me":"B"}]}`,
        ),
        'INVALID_REQUEST',
        'verifications[1].name',
        /^Duplicate key in the body/,
      );
      flat(
        await send(`{"batchId":"dup-3","batchId":"other","verifications":[${entry('e-1')}]}`),
        'INVALID_REQUEST',
        'batchId',
        /^Duplicate key in the body: batchId$/,
      );
    });

    it('the same key in two entries is no duplicate: the batch is accepted', async () => {
      const response = await upload('?batchId=dup-4', `${entry('e-1')}\n${entry('e-2')}`);
      assert.equal(response.status, 202, response.text);
    });
  });

  describe('the bulk account import', () => {
    const importAs = (rawBody: string | Buffer) =>
      running.admin.request('POST', '/admin/accounts/import', { rawBody, headers: NDJSON });

    it('a 20 MB line stops the import naming its line', async () => {
      const body = `${JSON.stringify({ iban: germanIban(850_101), name: 'Before Long' })}\n{"iban":"${'1'.repeat(TWENTY_MB)}`;
      const response = await importAs(body);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error, 'INVALID_IMPORT');
      assert.equal(
        response.body.message,
        `The import stopped: the record on line 2 is longer than a record may be (${MAX_IMPORT_RECORD_BYTES} bytes)`,
      );
    });

    it('a key twice in one record refuses that row naming the key, never keeping the last', async () => {
      const body = [
        `{"iban":"${germanIban(850_104)}","name":"Erika Mustermann","name":"Mallory"}`,
        `{"iban":"${germanIban(850_105)}","name":"Ok","identifiers":{"lei":"a","lei":"b"}}`,
        JSON.stringify({ iban: germanIban(850_106), name: 'Kept' }),
      ].join('\n');
      const response = await importAs(body);
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body.errors, [
        { row: 1, field: 'name', code: 'DUPLICATE_KEY' },
        { row: 2, field: 'identifiers.lei', code: 'DUPLICATE_KEY' },
      ]);
    });

    it('an IBAN named twice refuses that row, touching neither account; a key written with an escape is read as JSON reads it', async () => {
      const [first, second, escaped] = [850_107, 850_108, 850_109].map((n) => germanIban(n));
      const body = [
        `{"iban":"${first}","name":"Erika Mustermann","iban":"${second}"}`,
        `{"\\u0069ban":"${escaped}","name":"Escaped Key"}`,
        `{"iban":"${second}","name":"Second Holder"}`,
      ].join('\n');
      const response = await importAs(body);
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body.errors, [{ row: 1, field: 'iban', code: 'DUPLICATE_KEY' }]);
      // The third row opens the second IBAN: the first row wrote nothing under it.
      assert.deepEqual(response.body.rows, {
        read: 3,
        created: 2,
        updated: 0,
        unchanged: 0,
        failed: 1,
      });
    });

    it('a lone surrogate, as a JSON escape or as bytes, refuses that row naming the field', async () => {
      const body = Buffer.concat([
        Buffer.from(`{"iban":"${germanIban(850_102)}","name":"Eri\\ud800ka"}\n`),
        Buffer.from(`{"iban":"${germanIban(850_103)}","name":"Ok","alternateNames":["Eri`),
        LONE_SURROGATE_BYTES,
        Buffer.from('ka"]}\n'),
      ]);
      const response = await importAs(body);
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body.errors, [
        { row: 1, field: 'name', code: 'INVALID_FIELD' },
        { row: 2, field: 'alternateNames.0', code: 'INVALID_FIELD' },
      ]);
    });
  });

  describe('results written as CSV (OWASP CSV injection)', () => {
    const formulas = ['=1+1', '+1+1', '-1+1', '@SUM(1+1)'];

    it('cells that begin with = + - @ are written quoted, a quote before them; the matched name too', async () => {
      const body = [
        ...formulas.map((id) => entry(id)),
        JSON.stringify({ id: 'close', iban: formulaHolder.iban, name: 'Max Musterman' }),
      ].join('\n');
      assert.equal((await upload('?batchId=formulas', body)).status, 202);
      await eventually(
        async () =>
          (await running.client.get('/api/v1/batch/formulas')).body?.resultsReady
            ? true
            : undefined,
        { timeoutMs: 60_000, what: 'the batch answered' },
      );
      const csv = await running.client.get('/api/v1/batch/formulas/results', {
        headers: { accept: 'text/csv' },
      });
      const lines = csv.text.trim().split('\n');
      assert.equal(lines[0], 'id,result,confidence,reason,matchedName');
      for (const [index, id] of formulas.entries())
        assert.equal(lines[index + 1], `"'${id}",MATCH,HIGH,,`);
      assert.equal(lines.at(-1), `close,PARTIAL_MATCH,MEDIUM,,"'=Max Mustermann"`);
    });

    it('a tab or a carriage return cannot begin a cell: such an entry is refused at upload', async () => {
      for (const id of ['\t=1+1', '\r=1+1'])
        flat(
          await upload('?batchId=controls', entry(id)),
          'INVALID_REQUEST',
          'verifications[0].id',
          /entry 0/,
        );
    });
  });
});
