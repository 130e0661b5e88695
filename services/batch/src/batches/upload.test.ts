import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { MAX_BATCH_ENTRY_BYTES } from '@vop/contracts';
import { ApiError } from '@vop/http';
import { eventLoopTurnsDuring } from '@vop/testing';
import { readCsvEntries, readJsonBody, readNdjsonEntries } from './upload.js';

/** A body arriving in small chunks, as a slow upload does. */
function chunked(text: string, size = 7): Readable {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
  return Readable.from(chunks);
}

const tooLarge = (error: unknown) =>
  error instanceof ApiError && error.status === 413 && error.code === 'BATCH_TOO_LARGE';

describe('batch uploads, read as streams', () => {
  it('JSON: the whole body, whatever the chunking', async () => {
    const body = { batchId: 'b', verifications: [{ id: '1', iban: 'DE', name: 'A' }] };
    assert.deepEqual(await readJsonBody(chunked(JSON.stringify(body)), 'verifications'), body);
  });

  it('JSON: a buffered body is read a chunk per turn of the event loop, so other work runs between', async () => {
    const verifications = Array.from({ length: 2000 }, (_, index) => ({
      id: String(index),
      iban: 'DE89370400440532013000',
      name: `Holder ${index}`,
    }));
    const text = JSON.stringify({ batchId: 'b', verifications });
    const chunks = text.length / 4096;
    const { result: body, turns } = await eventLoopTurnsDuring(() =>
      readJsonBody(chunked(text, 4096), 'verifications'),
    );
    assert.deepEqual(body, { batchId: 'b', verifications });
    assert.ok(
      turns >= chunks / 2,
      `${turns} turns of the event loop for ${Math.ceil(chunks)} chunks`,
    );
  });

  it('JSON: the 10,001st entry stops the read with 413 before the end of the body', async () => {
    let served = 0;
    const entries = Array.from({ length: 20_000 }, (_, index) => `{"id":"${index}"}`);
    async function* body() {
      yield '{"batchId":"b","verifications":[';
      for (const [index, entry] of entries.entries()) {
        served += 1;
        yield (index > 0 ? ',' : '') + entry;
      }
      yield ']}';
    }
    await assert.rejects(readJsonBody(Readable.from(body()), 'verifications'), tooLarge);
    assert.ok(served < entries.length, `read ${served} of ${entries.length} entries`);
  });

  it('JSON: entries of another array are not counted', async () => {
    const body = { other: Array.from({ length: 10_001 }, () => ({})), verifications: [] };
    assert.deepEqual(
      await readJsonBody(chunked(JSON.stringify(body), 4096), 'verifications'),
      body,
    );
  });

  it('JSON: a broken body is a 400', async () => {
    await assert.rejects(
      readJsonBody(chunked('{"batchId":'), 'verifications'),
      (error: unknown) => error instanceof ApiError && error.status === 400,
    );
  });

  it('CSV: rows by the header id,iban,name; quoted fields; 413 past 10,000 rows', async () => {
    const csv = 'id,iban,name\n1,DE89370400440532013000,"Mustermann, Erika"\n';
    assert.deepEqual(await readCsvEntries(chunked(csv)), [
      { id: '1', iban: 'DE89370400440532013000', name: 'Mustermann, Erika' },
    ]);
    const big = ['id,iban,name', ...Array.from({ length: 10_001 }, (_, i) => `${i},X,Y`)];
    await assert.rejects(readCsvEntries(chunked(big.join('\n'), 1000)), tooLarge);
  });

  it('NDJSON: one entry per line, blank lines ignored; 413 past 10,000 lines', async () => {
    const lines = '{"id":"1"}\n\n{"id":"2"}';
    assert.deepEqual(await readNdjsonEntries(chunked(lines)), [{ id: '1' }, { id: '2' }]);
    const big = Array.from({ length: 10_001 }, (_, i) => `{"id":"${i}"}`).join('\n');
    await assert.rejects(readNdjsonEntries(chunked(big, 1000)), tooLarge);
  });

  describe('a line, record or entry longer than an entry may be', () => {
    const TWENTY_MB = 20 * 1024 * 1024;
    /** A body whose chunks are counted as the reader takes them: a refusal must not read it all. */
    function counted(head: string, fill: string, tail = '') {
      const read = { chunks: 0, total: Math.ceil(TWENTY_MB / 65_536) + 2 };
      async function* body() {
        read.chunks += 1;
        yield head;
        const chunk = fill.repeat(Math.ceil(65_536 / fill.length)).slice(0, 65_536);
        for (let sent = 0; sent < TWENTY_MB; sent += chunk.length) {
          read.chunks += 1;
          yield chunk;
        }
        read.chunks += 1;
        yield tail;
      }
      return { body: Readable.from(body()), read };
    }
    const refusedAt =
      (field: string, line: number, what = `Line ${line}`) =>
      (error: unknown) =>
        error instanceof ApiError &&
        error.status === 400 &&
        error.code === 'INVALID_REQUEST' &&
        error.extra.field === field &&
        error.extra.reason === 'TOO_LONG' &&
        error.message.startsWith(`${what} is longer than an entry may be`);
    const entry = (id: number) =>
      `{"id":"${id}","iban":"DE89370400440532013000","name":"Erika Mustermann"}`;

    it('NDJSON: a 20 MB line after two entries is refused naming line 4, before the body is read', async () => {
      const { body, read } = counted(`${entry(1)}\n\n${entry(2)}\n{"id":"3","name":"`, 'A', '"}');
      await assert.rejects(readNdjsonEntries(body), refusedAt('verifications[2]', 4));
      assert.ok(read.chunks < read.total / 10, `read ${read.chunks} of ${read.total} chunks`);
    });

    it('NDJSON: 20 MB with no line feed at all is refused as line 1', async () => {
      const { body, read } = counted('', '{"id":"1",');
      await assert.rejects(readNdjsonEntries(body), refusedAt('verifications[0]', 1));
      assert.ok(read.chunks < read.total / 10, `read ${read.chunks} of ${read.total} chunks`);
    });

    it('NDJSON: a line of exactly the bound, spread over chunks, is read', async () => {
      const padding = MAX_BATCH_ENTRY_BYTES - entry(1).length;
      const line = `${entry(1).slice(0, -1)}${' '.repeat(padding)}}`;
      assert.equal(Buffer.byteLength(line), MAX_BATCH_ENTRY_BYTES);
      assert.equal((await readNdjsonEntries(chunked(`${line}\n${entry(2)}`, 1000))).length, 2);
      await assert.rejects(
        readNdjsonEntries(chunked(`${entry(1)}\n${line} `, 1000)),
        refusedAt('verifications[1]', 2),
      );
    });

    it('NDJSON: a line is cut from bytes, so a character split across chunks stays whole', async () => {
      const text = `{"id":"1","name":"Zoë Ørsted 😀"}\n`;
      const bytes = Buffer.from(text, 'utf8');
      const body = Readable.from(Array.from(bytes, (byte) => Buffer.from([byte])));
      assert.deepEqual(await readNdjsonEntries(body), [{ id: '1', name: 'Zoë Ørsted 😀' }]);
    });

    it('CSV: a 20 MB record is refused naming its line, a quoted line break or not', async () => {
      const quoted = counted('id,iban,name\n1,DE89370400440532013000,"Erika\n', 'A');
      await assert.rejects(
        readCsvEntries(quoted.body),
        refusedAt('body', 2, 'The record on line 2'),
      );
      assert.ok(
        quoted.read.chunks < quoted.read.total / 10,
        `read ${quoted.read.chunks} of ${quoted.read.total} chunks`,
      );
      const commas = counted('id,iban,name\n', ',');
      await assert.rejects(
        readCsvEntries(commas.body),
        refusedAt('body', 2, 'The record on line 2'),
      );
      assert.ok(
        commas.read.chunks < commas.read.total / 10,
        `read ${commas.read.chunks} of ${commas.read.total} chunks`,
      );
    });

    it('JSON: a 20 MB entry is refused naming the entry and its line; so is a 20 MB batchId', async () => {
      const head = `{"batchId":"b","verifications":[\n${entry(1)},\n{"id":"2","name":"`;
      const big = counted(head, 'A', '"}]}');
      await assert.rejects(
        readJsonBody(big.body, 'verifications'),
        refusedAt('verifications[1]', 3, 'verifications[1] (line 3)'),
      );
      assert.ok(
        big.read.chunks < big.read.total / 10,
        `read ${big.read.chunks} of ${big.read.total} chunks`,
      );
      const id = counted('{"verifications":[],"batchId":"', 'b', '"}');
      await assert.rejects(
        readJsonBody(id.body, 'verifications'),
        refusedAt('body', 1, 'A member of the body (line 1)'),
      );
    });

    it('JSON: entries of exactly the bound are read, whatever the chunking', async () => {
      const padding = MAX_BATCH_ENTRY_BYTES - entry(1).length;
      const padded = `${entry(1).slice(0, -1)}${' '.repeat(padding)}}`;
      const text = `{"batchId":"b","verifications":[${padded},${padded}]}`;
      const body = (await readJsonBody(chunked(text, 999), 'verifications')) as {
        verifications: unknown[];
      };
      assert.equal(body.verifications.length, 2);
    });
  });
});
